/** `--sweep`: the highest rate the masters serve within the thresholds (the knee), and the curve up to it. */
import { summarize, decode } from '../load/histogram.js';
import type { LoadOptions } from '../load/options.js';
import type { RunResult } from '../load/result.js';
import type { SweepStep } from '../load/sweep-result.js';
import { withDefaults } from '../load/thresholds.js';
import { EXIT } from './errors.js';
import { measure, type RunContext } from './measure.js';
import { writeOutputs } from './outputs.js';
import { formatResult } from './table.js';

/** Bisections between the last rate that held and the first that failed: a x1.5 step narrows to about ±6%. */
const kRefine = 2;

/**
 * A rate's verdict over its runs: one run that held is taken; one that failed is run again up to `confirm`
 * more times, and the rate holds when most of its runs held. Near the knee a single 5 s run's p99 goes
 * either way on a shared host (bench/results/sweep-check.json: one run failed at 6,309/s and others held
 * up to 8,633/s), and one unlucky step ended the climb there. Returns the runs' results, the last deciding.
 */
export async function verdict<R>(once: () => Promise<{ ok: boolean; result: R }>, confirm: number,
  stopped: () => boolean): Promise<{ ok: boolean; held: number; runs: R[] }> {
  const runs: R[] = [];
  let held = 0;
  for (let i = 0; i <= confirm; i++) {
    const run = await once();
    runs.push(run.result);
    if (run.ok) held++;
    const failed = runs.length - held;
    // Decided: a first run that held, a majority of the runs allowed either way, or a stop asked for.
    if ((i === 0 && run.ok) || held > (confirm + 1) / 2 || failed > (confirm + 1) / 2 || stopped()) break;
  }
  return { ok: held * 2 > runs.length, held, runs };
}

/** The next rate after `rate`: `x1.5` multiplies, `+500` adds. */
export function nextRate(rate: number, step: string): number {
  return Math.round(step.startsWith('x') ? rate * Number(step.slice(1)) : rate + Number(step.slice(1)));
}

/**
 * Runs --rate, then rates raised by --sweep-step, each a full run (warm-up, then --duration) so that
 * no step inherits the last one's backlog, until one fails a threshold; then bisects between the
 * last that held and the first that failed. Prints and writes the knee's result with the curve.
 */
export async function sweepRun(options: LoadOptions, urls: readonly string[], run: RunContext): Promise<number> {
  const sweep = options.sweep!;
  const steps: SweepStep[] = [];
  let knee: { rate: number; result: RunResult } | undefined;
  let first: RunResult | undefined;
  let fail = Infinity;
  const step = async (rate: number): Promise<boolean> => {
    const once = async (): Promise<{ ok: boolean; result: RunResult }> => {
      // Each step's host line says its own rate: the result shown is the knee's run.
      const { result } = await measure({ ...options, rate }, urls, { ...run, host: { ...run.host, flags: { ...run.host.flags, rate } } });
      const held = (result.thresholds ?? []).every((t) => t.ok) && !result.interrupted;
      console.error(`pipelock loadtest: sweep ${rate}/s: ${result.throughput.toFixed(1)} cycles/s, acquire p99 `
        + `${result.operations.acquire.p99} µs, ${held ? 'held' : 'failed'}`);
      return { ok: held, result };
    };
    const { ok, held, runs } = await verdict(once, sweep.confirm, () => run.stop.signal.aborted);
    const result = runs.at(-1)!;
    first ??= result;
    steps.push(stepOf(rate, ok, result, { runs: runs.length, held }));
    if (ok && rate > (knee?.rate ?? 0)) knee = { rate, result };
    if (!ok) fail = Math.min(fail, rate);
    return ok;
  };
  let rate = options.rate;
  for (let i = 0; i < sweep.steps && !run.stop.signal.aborted; i++, rate = nextRate(rate, sweep.step)) {
    if (!(await step(rate))) break;
  }
  for (let i = 0; i < kRefine && knee !== undefined && fail !== Infinity && !run.stop.signal.aborted; i++) {
    const mid = Math.round((knee.rate + fail) / 2);
    if (mid <= knee.rate || mid >= fail) break;
    await step(mid);
  }
  const shown = knee?.result ?? first!;
  const result: RunResult = { ...shown, sweep: { bounds: withDefaults(options.thresholds).map((t) => t.rule), knee: knee?.rate ?? null,
    steps: steps.sort((a, b) => a.rate - b.rate) } };
  console.log(formatResult(result));
  await writeOutputs(result, options);
  return knee === undefined ? EXIT.thresholds : EXIT.ok;
}

function stepOf(rate: number, ok: boolean, result: RunResult, tally: { runs: number; held: number }): SweepStep {
  const errors = Object.values(result.errors).reduce((a, b) => a + b, 0);
  const summary = (encoded: string): SweepStep['acquire'] => {
    const histogram = decode(encoded);
    const s = summarize(histogram);
    histogram.destroy();
    return s;
  };
  return {
    rate, ok, ...tally, throughput: result.throughput, cycles: result.cycles, errors,
    lateShare: result.due === undefined || result.due === 0 ? 0 : (result.lateStarts ?? 0) / result.due,
    acquire: summary(result.operations.acquire.histogram), cycle: summary(result.operations.cycle.histogram),
  };
}
