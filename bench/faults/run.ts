/**
 * `npm run faults`: the fault-injection suite. For each named scenario, fresh masters and a separate
 * fenced-log server are started; worker threads of the load generator contend for a few hot
 * resources with fenced critical sections while the fault is injected; then the checker reads the
 * shared ledger and the log server, and the masters are scanned for keys left behind.
 * The full run writes bench/results/faults.json and RELIABILITY.md; `--short` (CI) writes neither
 * unless given --json. Exits 1 when a scenario misses what it must meet.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { defaultSettings } from '../../src/index.js';
import { startMasters } from '../../src/testing/masters.js';
import { valkeyServer } from '../../test/helpers/valkey.js';
import { fencedLogKeys } from './safety/fenced-log.js';
import type { SafetyData } from './safety/critical-section.js';
import { Ledger, sharedNow } from './safety/ledger.js';
import { kLoadDefaults, type LoadOptions } from '../../tools/src/load/options.js';
import { runLoad } from '../../tools/src/load/runner.js';
import { withClient } from '../../tools/src/shared/admin.js';
import { FaultProxy } from '../../test/helpers/proxy.js';
import { hostInfo, hostLine, type Host } from '../lib/host.js';
import { check, type LogState, type SafetyFigures } from './check.js';
import { clockedMasters } from './clock.js';
import { checkTerms, type TermFigures } from './terms.js';
import { FAULTS_JSON, renderReliability } from './render.js';
import { SCENARIOS, type FaultContext, type Scenario } from './scenarios.js';
import { runScripted, SCRIPTED, type ScriptedResult } from './scripted.js';

/** The contention every scenario runs under. */
export const kSettings = Object.freeze({
  masters: 5,
  workers: 2,
  /** Closed-loop contenders per worker. */
  contenders: 8,
  /** Hot resources all contenders fight over. */
  resources: 4,
  lockMs: 1_000,
  holdMs: 2,
  retryCount: 2,
  retryDelayMs: 30,
  retryJitterMs: 20,
  nodeTimeoutMs: defaultSettings.nodeTimeout,
  /** Contention before the fault starts, and after it ends, ms (× scale). */
  beforeMs: 1_500,
  afterMs: 2_500,
});
const kShortScale = 0.5;
const kLedgerRows = 400_000;

export interface ScenarioResult extends SafetyFigures {
  readonly name: string;
  readonly fault: string;
  readonly expect: Scenario['expect'];
  /** How a clock jump was made, for scenarios that move clocks. */
  readonly method?: string;
  /** The hold, when not the suite's default. */
  readonly holdMs?: number;
  readonly faultMs: number;
  readonly runMs: number;
  /** Acquisition attempts (each one round to every master). */
  readonly attempts: number;
  /** Failed acquire-write-release cycles by error code. */
  readonly failures: Readonly<Record<string, number>>;
  /** Lock keys still on a master after every contender released and quit. */
  readonly keysLeft: number;
  /** Keys on the masters with no TTL at all. */
  readonly keysWithoutTtl: number;
  readonly ledgerOverflow: number;
  /** The election scenario's leaderships and terms (section 'election'). */
  readonly election?: TermFigures;
  /** The fault-free run before the fault, then each phase the scenario marked: what the masters ran, per acquisition. */
  readonly phases?: readonly Phase[];
  /** What the scenario missed of what it must meet; empty: it passed. */
  readonly problems: readonly string[];
}

export interface Phase {
  readonly label: string;
  readonly ms: number;
  /** Commands every master ran meanwhile (INFO commandstats, those run by scripts included). */
  readonly commands: number;
  readonly acquisitions: number;
}

export interface FaultsResult {
  readonly format: 'pipelock-faults';
  readonly version: 1;
  readonly host: Host;
  readonly mode: 'full' | 'short';
  readonly settings: typeof kSettings;
  readonly scenarios: readonly ScenarioResult[];
  /** The scripted scenarios (bench/faults/scripted.ts), absent in results older than them. */
  readonly scripts?: readonly ScriptedResult[];
}

function loadOptions(scenario: Scenario): LoadOptions {
  return {
    ...kLoadDefaults,
    workers: scenario.load?.workers ?? kSettings.workers,
    concurrency: scenario.load?.contenders ?? kSettings.contenders,
    // The run is ended by the scenario (an abort), not by a duration.
    durationMs: 3_600_000,
    warmupMs: 0,
    keys: scenario.load?.resources ?? kSettings.resources,
    holdMs: scenario.holdMs ?? kSettings.holdMs,
    lockMs: kSettings.lockMs,
    retryCount: kSettings.retryCount,
    retryDelayMs: kSettings.retryDelayMs,
    retryJitterMs: kSettings.retryJitterMs,
  };
}

/** Lock keys under `prefix` (an election's history aside), and keys without a TTL, on every master. */
async function scanKeys(urls: readonly string[], prefix: string): Promise<{ left: number; withoutTtl: number }> {
  const counts = await Promise.all(urls.map((url) => withClient(url, async (client) => {
    let left = 0;
    let withoutTtl = 0;
    let cursor = '0';
    do {
      const [next, keys] = await client.sendCommand<[string, string[]]>(['SCAN', cursor, 'COUNT', '1000']);
      cursor = next;
      for (const key of keys) {
        // An election's history of changes outlives its terms on purpose (with a TTL, checked below).
        if (key.startsWith(prefix) && !key.endsWith(':history')) left++;
        if (Number(await client.sendCommand(['PTTL', key])) === -1) withoutTtl++;
      }
    } while (cursor !== '0');
    return { left, withoutTtl };
  })));
  return counts.reduce((a, b) => ({ left: a.left + b.left, withoutTtl: a.withoutTtl + b.withoutTtl }));
}

async function readLog(url: string, resources: number): Promise<LogState[]> {
  return withClient(url, (client) => Promise.all(Array.from({ length: resources }, async (_, resource) => {
    const [state, entries] = fencedLogKeys(resource);
    // HGET of a missing field is null: Number(null) is 0.
    const rejected = Number(await client.sendCommand(['HGET', state, 'rejected']));
    const lines = await client.sendCommand<string[]>(['LRANGE', entries, '0', '-1']);
    return { resource, rejected, fences: lines.map((line) => Number(line.split(' ', 1)[0])) };
  })));
}

/** Commands run on the masters so far (INFO commandstats, every command but INFO). */
async function commandsRun(urls: readonly string[]): Promise<number> {
  const infos = await Promise.all(urls.map((url) => withClient(url, (client) => client.sendCommand<string>(['INFO', 'commandstats']))));
  let total = 0;
  for (const info of infos) for (const m of info.matchAll(/cmdstat_([^:]+):calls=(\d+)/g)) if (m[1] !== 'info') total += Number(m[2]);
  return total;
}

/**
 * Each marked phase against the fault-free one: commands per acquisition, or per second where the
 * phase could hardly acquire (under a tenth of the fault-free rate: no quorum to be had).
 */
function stormProblems(phases: readonly Phase[], factor: number): string[] {
  const [base, ...rest] = phases;
  if (base === undefined || base.acquisitions === 0) return ['no acquisition before the fault to compare the phases with'];
  const problems: string[] = [];
  for (const phase of rest) {
    if (phase.acquisitions / phase.ms >= 0.1 * (base.acquisitions / base.ms)) {
      const ratio = (phase.commands / phase.acquisitions) / (base.commands / base.acquisitions);
      if (ratio > factor) problems.push(`${phase.label}: ${ratio.toFixed(1)}× the fault-free commands per acquisition (at most ${factor}×)`);
    } else {
      const ratio = (phase.commands / phase.ms) / (base.commands / base.ms);
      if (ratio > factor) problems.push(`${phase.label}: hardly any acquisition, and ${ratio.toFixed(1)}× the fault-free commands per second (at most ${factor}×)`);
    }
  }
  return problems;
}

/** What an election must also meet: terms rising in order of leadership, and a paused leader told of its loss. */
function electionProblems(terms: TermFigures): string[] {
  const problems: string[] = [];
  if (terms.termInversions > 0) problems.push(`${terms.termInversions} term(s) not above every earlier leader's`);
  if (terms.pausedNotTold > 0) problems.push(`${terms.pausedNotTold} leader(s) paused past the lease whose term's signal did not abort with a loss`);
  return problems;
}

function judge(scenario: Scenario, figures: SafetyFigures, keys: { left: number; withoutTtl: number }, overflow: number, phases: readonly Phase[], terms: TermFigures | undefined, own: readonly string[]): string[] {
  const problems: string[] = terms === undefined ? [...own] : [...own, ...electionProblems(terms)];
  if (scenario.maxCommandsFactor !== undefined) problems.push(...stormProblems(phases, scenario.maxCommandsFactor));
  if (figures.acquisitions === 0) problems.push('no acquisition at all');
  if (scenario.expect === 'safe' && figures.violations > 0) problems.push(`${figures.violations} safety violation(s)`);
  if (figures.fenceInversions > 0) problems.push(`${figures.fenceInversions} fencing token(s) not above an earlier holder's`);
  if (!figures.server.ordered) problems.push('the log server accepted a stale fence');
  // The log server is never faulted: a write it did not answer leaves the fenced evidence incomplete.
  if (figures.writes.failed > 0) problems.push(`${figures.writes.failed} fenced write(s) got no answer from the log server`);
  if (!figures.server.agrees) problems.push(`the log server's tally (${figures.server.accepted} accepted, ${figures.server.rejected} rejected) differs from the ledger's (${figures.writes.accepted}, ${figures.writes.rejected})`);
  if (figures.stalled.staleRejected < figures.stalled.stale) problems.push(`${figures.stalled.stale - figures.stalled.staleRejected} stale write(s) of a paused holder accepted`);
  if (figures.recoveryMs === null) problems.push('a resource was never acquired again after the fault');
  if (keys.left > 0) problems.push(`${keys.left} lock key(s) left after release`);
  if (keys.withoutTtl > 0) problems.push(`${keys.withoutTtl} key(s) without TTL`);
  if (overflow > 0) problems.push(`${overflow} section(s) did not fit the ledger`);
  return problems;
}

/** The load worker's module for each kind of section. */
const kSections: Readonly<Record<NonNullable<Scenario['section']>, string>> = {
  mutex: './safety/critical-section.ts',
  reentrant: './safety/reentrant-section.ts',
  election: './safety/election-section.ts',
  renewed: './safety/renewed-section.ts',
};

async function runScenario(scenario: Scenario, scale: number): Promise<ScenarioResult> {
  const opened: { close(): Promise<void> }[] = [];
  try {
    const { masters, clock } = scenario.clocked === true
      ? await clockedMasters(kSettings.masters)
      : { masters: await startMasters({ count: kSettings.masters }), clock: undefined };
    opened.push(masters);
    const logServer = await startMasters({ count: 1 });
    opened.push(logServer);
    const proxies = scenario.proxied === true ? await Promise.all([3, 4].map((i) => FaultProxy.start(masters.urls[i]!))) : [];
    opened.push(...proxies);
    const urls = masters.urls.map((url, i) => proxies[i - 3]?.url ?? url);
    const spare = scenario.spare === true ? await startMasters({ count: 1 }) : undefined;
    if (spare !== undefined) opened.push(spare);
    const ledger = Ledger.create(kLedgerRows);
    const marks: { label: string; at: number; commands: number }[] = [];
    const mark = async (label: string): Promise<void> => {
      marks.push({ label, at: sharedNow(), commands: await commandsRun(masters.urls) });
    };
    const context: FaultContext = { masters, proxies, ledger, clock, lockMs: kSettings.lockMs, nodeTimeoutMs: kSettings.nodeTimeoutMs, scale, spare: spare?.urls[0], mark };
    const prefix = `faults:${randomBytes(4).toString('hex')}:`;

    const stop = new AbortController();
    let onStart: () => void = () => undefined;
    const started = new Promise<void>((resolve) => {
      onStart = resolve;
    });
    const running = runLoad(loadOptions(scenario), urls, prefix, {
      onStart,
      onSecond: () => undefined,
      signal: stop.signal,
      custom: {
        module: new URL(kSections[scenario.section ?? 'mutex'], import.meta.url).href,
        data: { ledger: ledger.buffer, logUrl: logServer.urls[0]!, ...(scenario.section === 'renewed' ? { urls, heartbeatBound: scenario.heartbeatBound } : {}) } satisfies SafetyData,
      },
    });
    // A run that fails before it starts (an unreachable master) rejects here instead of hanging.
    await Promise.race([started, running]);
    const start = sharedNow();
    if (scenario.maxCommandsFactor !== undefined) await mark('fault-free');
    await delay(kSettings.beforeMs * scale);
    const faultStart = sharedNow();
    await scenario.inject(context);
    const faultEnd = sharedNow();
    if (marks.length > 0) await mark('end');
    await delay(scenario.afterMs ?? kSettings.afterMs * scale);
    const end = sharedNow();
    stop.abort();
    const output = await running;

    const failures: Record<string, number> = {};
    for (const report of output.reports) {
      for (const [code, count] of Object.entries(report.errors)) failures[code] = (failures[code] ?? 0) + count;
    }
    const keys = await scanKeys(masters.urls, prefix);
    const rows = ledger.rows();
    const resources = scenario.load?.resources ?? kSettings.resources;
    const figures = check(rows, await readLog(logServer.urls[0]!, resources), { start, faultStart, faultEnd, end }, resources);
    const terms = scenario.section === 'election' ? checkTerms(rows) : undefined;
    // The fault-free phase ends where the fault starts (its first mark).
    const phases: Phase[] = marks.slice(0, -1).map((m, i) => {
      const next = marks[i + 1]!;
      return { label: m.label, ms: next.at - m.at, commands: next.commands - m.commands, acquisitions: rows.filter((row) => row.entry >= m.at && row.entry < next.at).length };
    });
    return {
      name: scenario.name,
      fault: scenario.fault,
      expect: scenario.expect,
      ...(clock === undefined ? {} : { method: clock.method }),
      ...(scenario.holdMs === undefined ? {} : { holdMs: scenario.holdMs }),
      faultMs: faultEnd - faultStart,
      runMs: end - start,
      attempts: ledger.attempts,
      failures,
      ...figures,
      keysLeft: keys.left,
      keysWithoutTtl: keys.withoutTtl,
      ledgerOverflow: ledger.overflow,
      ...(terms === undefined ? {} : { election: terms }),
      ...(phases.length === 0 ? {} : { phases }),
      problems: judge(scenario, figures, keys, ledger.overflow, phases, terms, scenario.problems?.(rows, failures) ?? []),
    };
  } finally {
    for (const resource of opened.reverse()) await resource.close();
  }
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

function line(result: ScenarioResult): string {
  const failures = Object.values(result.failures).reduce((a, b) => a + b, 0);
  const verdict = result.problems.length === 0 ? 'ok' : `FAIL: ${result.problems.join('; ')}`;
  return `  ${fmt(result.attempts)} attempts, ${fmt(result.acquisitions)} acquisitions, ${fmt(failures)} failed cycles, ` +
    `${result.violations} violations (${result.expect}), ${result.writes.rejected} fenced writes rejected, ` +
    `recovery ${result.recoveryMs === null ? 'never' : `${fmt(result.recoveryMs)} ms`}, ${result.keysLeft} keys left, ${result.keysWithoutTtl} without TTL — ${verdict}` +
    (result.election === undefined ? '' : `\n  election: ${result.election.leaderships} leaderships, ${result.election.lost} lost, ${result.election.termInversions} term inversions, ${result.election.pausedNotTold} paused leaders not told`);
}

/** Scenarios with their own shape of load, each a script run in its own process after the others. */
const USAGE = `usage: npm run faults -- [--short] [--valkey] [--only NAME,…] [--json FILE]

  --short      CI's form: every fault ${kShortScale}× as long; writes no file unless --json
  --only       run these scenarios only (${[...SCENARIOS, ...SCRIPTED].map((s) => s.name).join(', ')}); writes no file unless --json
  --valkey     Valkey masters (scripts/ensure-valkey.sh) instead of redis-server: the script-free path
  --json FILE  where to write the results (default for a full run: bench/results/faults.json, and RELIABILITY.md)`;

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ options: { short: { type: 'boolean' }, valkey: { type: 'boolean' }, only: { type: 'string' }, json: { type: 'string' }, help: { type: 'boolean' } } }));
  } catch (error) {
    console.error(`faults: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (values.help === true) {
    console.log(USAGE);
    return 0;
  }
  // startMasters reads it at each start, and the workers inherit it.
  if (values.valkey === true) process.env.PIPELOCK_REDIS_SERVER = valkeyServer();
  const names = values.only?.split(',') ?? [];
  const unknown = names.filter((name) => !SCRIPTED.some((s) => s.name === name) && !SCENARIOS.some((s) => s.name === name));
  if (unknown.length > 0) {
    console.error(`faults: --only: no scenario named ${unknown.join(', ')}\n\n${USAGE}`);
    return 2;
  }
  const chosen = names.length === 0 ? SCENARIOS : SCENARIOS.filter((s) => names.includes(s.name));
  const short = values.short === true;
  // RELIABILITY.md is the Redis 7 run's: a Valkey run writes only the JSON it is given.
  const complete = !short && names.length === 0 && values.valkey !== true;
  const host = hostInfo(['@redis/client', 'piscina'], `npm run faults${process.argv.slice(2).length > 0 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`, values.valkey === true ? valkeyServer() : undefined);
  console.log(`faults: ${hostLine(host)}`);

  const results: ScenarioResult[] = [];
  // Each scenario's wall time, masters' start and checks included: where a run's minutes go (CI's budget).
  const took: (readonly [string, number])[] = [];
  const timing = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await run();
    } finally {
      took.push([name, performance.now() - started]);
    }
  };
  for (const [i, scenario] of chosen.entries()) {
    console.log(`[${i + 1}/${chosen.length}] ${scenario.name}: ${scenario.fault}`);
    const result = await timing(scenario.name, () => runScenario(scenario, short ? kShortScale : 1));
    console.log(line(result));
    for (const phase of result.phases ?? []) console.log(`    ${phase.label}: ${fmt(phase.ms)} ms, ${fmt(phase.acquisitions)} acquisitions, ${fmt(phase.commands)} commands (${fmt(phase.commands / (phase.ms / 1000))}/s, ${phase.acquisitions === 0 ? 'no acquisition' : `${(phase.commands / phase.acquisitions).toFixed(1)} per acquisition`})`);
    results.push(result);
  }

  const scripts = SCRIPTED.filter((script) => names.length === 0 || names.includes(script.name));
  const total = results.length + scripts.length;
  const scripted: ScriptedResult[] = [];
  for (const [i, script] of scripts.entries()) {
    console.log(`[${results.length + i + 1}/${total}] ${script.name}: ${script.fault}`);
    scripted.push(await timing(script.name, () => runScripted(script, short)));
  }
  const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
  const all = took.reduce((sum, [, ms]) => sum + ms, 0);
  console.log(`faults: ${took.length} scenarios in ${seconds(all)}: ${[...took].sort((a, b) => b[1] - a[1]).map(([name, ms]) => `${name} ${seconds(ms)}`).join(', ')}`);

  const result: FaultsResult = { format: 'pipelock-faults', version: 1, host, mode: short ? 'short' : 'full', settings: kSettings, scenarios: results, scripts: scripted };
  const json = values.json ?? (complete ? FAULTS_JSON : undefined);
  if (json !== undefined) {
    await mkdir(dirname(json), { recursive: true });
    await writeFile(json, `${JSON.stringify(result, null, 2)}\n`);
    console.log(`faults: wrote ${json}`);
  }
  // RELIABILITY.md shows full runs of every scenario only.
  if (complete) console.log(`faults: wrote ${await renderReliability(result)}`);
  const failed = [...results.filter((r) => r.problems.length > 0), ...scripted.filter((r) => !r.ok)].map((r) => r.name);
  console.log(failed.length === 0 ? `faults: all ${total} scenarios met their expectations` : `faults: ${failed.length} of ${total} scenarios FAILED: ${failed.join(', ')}`);
  return failed.length === 0 ? 0 : 1;
}

process.exitCode = await main();
