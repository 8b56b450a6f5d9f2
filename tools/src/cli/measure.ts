import type { HostLine } from '../load/host.js';
import type { LoadOptions } from '../load/options.js';
import { buildResult, type RunResult } from '../load/result.js';
import { partsOf } from '../load/result-parts.js';
import { runLoad, stagesOf } from '../load/runner.js';
import { describeStages } from '../load/scenario.js';
import type { LiveSample } from '../load/live-totals.js';
import { OtlpExport } from '../load/otlp.js';
import { ThresholdWatch } from '../load/threshold-watch.js';
import type { liveReporter } from './live.js';

export interface RunContext {
  readonly host: HostLine;
  readonly prefix: string;
  readonly live: ReturnType<typeof liveReporter>;
  readonly stop: AbortController;
}

/** One measured run: the load, its result with parts and threshold verdicts; `missing` workers were terminated. */
export async function measure(options: LoadOptions, urls: readonly string[],
  run: RunContext): Promise<{ result: RunResult; missing: number }> {
  const { live, stop } = run;
  if (options.startAt !== undefined)
    console.error(`pipelock loadtest: ready; starting at ${new Date(options.startAt).toISOString()} (--start-at)`);
  const watch = new ThresholdWatch(options, (rule) => {
    console.error(`\npipelock loadtest: threshold ${rule} failed, stopping (--abort-on-fail)`);
    stop.abort();
  });
  const otlp = options.otlp === undefined ? undefined : new OtlpExport(options.otlp);
  let startedWall = 0;
  const output = await runLoad(options, urls, run.prefix, {
    ...(options.startAt === undefined ? {} : { startAt: options.startAt }),
    onStart: () => {
      startedWall = Date.now();
      const load = options.rate > 0 ? ` at ${options.rate}/s` : '';
      console.error(`pipelock loadtest: ${options.workers} workers started on ${urls.length} masters${load}; ${options.warmupMs / 1000}s `
        + `warm-up, then ${options.durationMs / 1000}s measured`);
    },
    onSecond: (sample) => {
      live.onSecond(sample);
      watch.onSecond(sample);
    },
    ...(otlp === undefined ? {} : { onHistograms: (sample: LiveSample, histograms: Parameters<OtlpExport['onSecond']>[1]) => {
      otlp.onSecond(sample, histograms);
    } }),
    signal: stop.signal,
  }).finally(() => otlp?.close().catch((error: unknown) => {
    console.error(`pipelock loadtest: --otlp: the last export failed: ${error instanceof Error ? error.message : String(error)}`);
  }));
  live.end();
  const built = buildResult(output.reports, {
    host: run.host,
    interrupted: output.interrupted,
    measuredSeconds: output.measuredSeconds,
    timeline: output.timeline,
    cpu: output.cpu,
    // On the wall clock, so that report merge can check runs from several machines measured together.
    ...(startedWall === 0 ? {}
      : { window: { from: startedWall + options.warmupMs, to: startedWall + options.warmupMs + output.measuredSeconds * 1000 } }),
  });
  const parts = partsOf(built, output.reports, partNames(options), stageSeconds(options, built.measuredSeconds));
  const result =
    { ...built, ...parts, thresholds: watch.final(built), ...(watch.abortedBy === undefined ? {} : { abortedBy: watch.abortedBy }) };
  return { result, missing: output.missing };
}

/** The names of the run's mix entries and stages: a scenario's, or the flags' one of each. */
function partNames(options: LoadOptions): { mix: string[]; stages: string[] } {
  const unit = options.rate > 0 ? '/s' : ' in flight';
  return {
    mix: options.mix?.map((e) => e.name) ?? [`${options.kind} ${options.operation}`],
    stages: stagesOf(options).map((s) => describeStages([s], unit)),
  };
}

/** Each stage's measured seconds: its duration, cut where a stop ended the window. */
function stageSeconds(options: LoadOptions, measured: number): number[] {
  let from = 0;
  return stagesOf(options).map((s) => {
    const seconds = Math.max(0, Math.min(s.durationMs / 1000, measured - from));
    from += s.durationMs / 1000;
    return seconds;
  });
}
