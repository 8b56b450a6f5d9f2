import { randomBytes } from 'node:crypto';
import { startMasters, type LocalMasters } from 'pipelock/testing';
import { hostLine, type HostLine } from '../load/host.js';
import type { LoadOptions } from '../load/options.js';
import { describeEntry, describeStages } from '../load/scenario.js';
import { probeServers, removeKeys } from '../load/servers.js';
import { redactUrl } from '../shared/redact-url.js';
import { electionRun } from './election.js';
import { EXIT, parseOr } from './errors.js';
import { LOADTEST_USAGE, parseLoadFlags } from './flags.js';
import { liveReporter } from './live.js';
import { measure, type RunContext } from './measure.js';
import { writeOutputs } from './outputs.js';
import { sweepRun } from './sweep.js';
import { formatResult, releasedUnconfirmed } from './table.js';

const kSignals = ['SIGINT', 'SIGTERM'] as const;

/** `pipelock loadtest`: returns the exit code; every path stops the workers and the masters it started. */
export async function loadtest(args: readonly string[]): Promise<number> {
  const options = parseOr('loadtest', LOADTEST_USAGE, () => parseLoadFlags(args));
  if (typeof options === 'number') return options;

  // This command owns SIGINT/SIGTERM: the first stops the run (what was measured is still printed);
  // a second one exits at once, the masters killed by the exit hook of src/testing/reaper.ts.
  const stop = new AbortController();
  let signalled: (typeof kSignals)[number] | undefined;
  const onSignal = (signal: (typeof kSignals)[number]): void => {
    if (signalled !== undefined) process.exit(EXIT[signalled]);
    signalled = signal;
    console.error(`\npipelock loadtest: ${signal}, stopping`);
    stop.abort();
  };
  for (const signal of kSignals) process.on(signal, onSignal);

  let masters: LocalMasters | undefined;
  let prefix: string | undefined;
  const live = liveReporter();
  try {
    const startedAt = new Date();
    let urls = options.servers;
    if (urls.length === 0) {
      masters = await startMasters({ count: options.masters, handleSignals: false });
      urls = masters.urls;
    }
    if (stop.signal.aborted) return EXIT[signalled!];
    const versions = await probeServers(urls);
    prefix = `pipelock-load:${randomBytes(6).toString('hex')}:`;
    if (options.kind === 'election') {
      const code = await electionRun(options, urls, `${prefix}election`, hostLine(versions, flagsOf(options), startedAt), stop.signal);
      return signalled === undefined ? code : EXIT[signalled];
    }
    const code = await cycleRun(options, urls, { host: hostLine(versions, flagsOf(options), startedAt), prefix, live, stop });
    return signalled === undefined ? code : EXIT[signalled];
  } catch (error) {
    live.end();
    console.error(`pipelock loadtest: ${error instanceof Error ? error.message : String(error)}`);
    return signalled === undefined ? EXIT.failed : EXIT[signalled];
  } finally {
    for (const signal of kSignals) process.off(signal, onSignal);
    if (masters !== undefined) await masters.close();
    // Existing masters keep nothing of ours: a lock left held (a stop mid-cycle, a failed release) is removed now.
    else if (prefix !== undefined) await cleanUp(options.servers, prefix);
  }
}

/** A cycle run (or a sweep of them): measures, prints and writes the result, judges the thresholds; returns the exit code. */
async function cycleRun(options: LoadOptions, urls: readonly string[], run: RunContext): Promise<number> {
  if (options.sweep !== undefined) return sweepRun(options, urls, run);
  const { result, missing } = await measure(options, urls, run);
  console.log(formatResult(result));
  if (missing > 0)
    console.error(`pipelock loadtest: ${missing} worker(s) did not stop in time and were terminated; their counts are missing`);
  await writeOutputs(result, options);
  if (result.cycles + releasedUnconfirmed(result) === 0) {
    console.error('pipelock loadtest: no cycle completed in the measured window (see errors above)');
    return EXIT.failed;
  }
  const failed = (result.thresholds ?? []).filter((t) => !t.ok);
  if (failed.length === 0) return EXIT.ok;
  console.error(`pipelock loadtest: ${failed.length} threshold(s) failed: ${failed.map((t) => t.rule).join(', ')}`);
  return EXIT.thresholds;
}

async function cleanUp(urls: readonly string[], prefix: string): Promise<void> {
  try {
    const removed = await removeKeys(urls, prefix);
    if (removed > 0) console.error(`pipelock loadtest: removed ${removed} leftover key(s) under ${prefix}`);
  } catch (error) {
    console.error(`pipelock loadtest: could not remove keys under ${prefix}*: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function flagsOf(options: LoadOptions): HostLine['flags'] {
  const { stages, mix, scenario, ...rest } = options;
  const open = options.rate > 0;
  return {
    ...rest, scenario: scenario ?? null,
    stages: stages === undefined ? null : stages.map((s) => describeStages([s], open ? '/s' : ' in flight')),
    mix: mix === undefined ? null : mix.map(describeEntry),
    thresholds: options.thresholds.map((t) => t.rule),
    otlp: options.otlp === undefined ? null : redactUrl(options.otlp),
    sweep: options.sweep === undefined ? null
      : `${options.sweep.step}, at most ${options.sweep.steps} steps, a failed step confirmed by up to ${options.sweep.confirm} more runs`,
      servers: options.servers.map(redactUrl), json: options.json ?? null, html: options.html ?? null,
        startAt: options.startAt === undefined ? null : new Date(options.startAt).toISOString(),
  };
}
