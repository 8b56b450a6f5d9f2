/**
 * The fault suite's memory scenario (`npm run faults` and `faults:ci` run it after the others, in its
 * own process so that its RSS is the load's alone): the main loadtest job (uncontended keys, full
 * speed, one Redlock per worker thread) over 5 masters, one of them SIGSTOPped for a while and then
 * resumed. The client's RSS and what its workers' objects keep alive (each worker collects before it
 * reports, hence --expose-gc) are sampled throughout; the stall may cost each at most a bounded amount
 * over its fault-free level, must not still be growing at the stall's end, and must be given back soon
 * after the resume (bench/faults/memory.ts); the other four masters must carry the load.
 *
 *   node --expose-gc --import tsx bench/faults/stall.ts [--short] [--no-fault] [--json FILE]
 * (stall 12 s; full: 30 s; --no-fault: the same run without the stall, a control). Exits 1 on a problem.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { startMasters } from '../../src/testing/masters.js';
import { kLoadDefaults, type LoadOptions } from '../../tools/src/load/options.js';
import { runLoad } from '../../tools/src/load/runner.js';
import { kLiveLimits, kRssLimits, memoryFigures, memoryProblems, type MemoryLimits, type MemorySample, type StallTimes } from './memory.js';

const { values } = parseArgs({ options: { short: { type: 'boolean', default: false }, json: { type: 'string' }, 'no-fault': { type: 'boolean', default: false } } });
const short = values.short;
/** Phases, ms: the load's own warm-up, the fault-free level, the stall, after the resume. */
const kPhases = short ? { warm: 3_000, steady: 3_000, stall: 12_000, after: 12_000 } : { warm: 4_000, steady: 6_000, stall: 30_000, after: 15_000 };
const kSampleMs = 250;
/** Throughput during the stall at least this share of the fault-free one. */
const kMinThroughput = 0.5;

if (typeof (globalThis as { gc?: unknown }).gc !== 'function') {
  console.error('faults stall-memory: run with node --expose-gc: the workers collect before they report what they keep alive');
  process.exit(2);
}

const load: LoadOptions = { ...kLoadDefaults, keys: 100_000, warmupMs: 0, durationMs: 3_600_000 };

const masters = await startMasters({ count: 5 });
const problems: string[] = [];
try {
  const stopped = new AbortController();
  const samples: MemorySample[] = [];
  const live: MemorySample[] = [];
  const seconds: { at: number; cycles: number }[] = [];
  let t0 = 0;
  let onStart: () => void = () => undefined;
  const started = new Promise<void>((resolve) => {
    onStart = resolve;
  });
  const running = runLoad(load, masters.urls, `faults-stall:${randomBytes(4).toString('hex')}:`, {
    onStart,
    onSecond: (sample) => {
      const at = performance.now() - t0;
      seconds.push({ at, cycles: sample.cycles });
      live.push({ at, bytes: sample.inUse });
    },
    signal: stopped.signal,
  });
  // A run that fails before it starts rejects here instead of hanging.
  await Promise.race([started, running]);
  t0 = performance.now();
  const sampler = setInterval(() => samples.push({ at: performance.now() - t0, bytes: process.memoryUsage.rss() }), kSampleMs);
  const paused = masters.masters[2]!;
  let times: StallTimes;
  try {
    await delay(kPhases.warm + kPhases.steady);
    const stallStart = performance.now() - t0;
    if (!values['no-fault']) paused.pause();
    await delay(kPhases.stall);
    paused.resume();
    const stallEnd = performance.now() - t0;
    await delay(kPhases.after);
    times = { steady: kPhases.warm, stallStart, stallEnd, end: performance.now() - t0 };
  } finally {
    paused.resume();
    clearInterval(sampler);
    stopped.abort();
  }
  const output = await running;

  const figures = memoryFigures(samples, times);
  problems.push(...memoryProblems(figures, kRssLimits));
  const liveFigures = memoryFigures(live, times, kLiveLimits);
  problems.push(...memoryProblems(liveFigures, kLiveLimits));
  const rate = (from: number, to: number): number => {
    // A second's count is reported at its end: the seconds that ended inside [from + 1 s, to).
    const inside = seconds.filter((s) => s.at >= from + 1_000 && s.at < to);
    return inside.reduce((sum, s) => sum + s.cycles, 0) / Math.max(1, inside.length);
  };
  const steadyRate = rate(times.steady, times.stallStart);
  const stallRate = rate(times.stallStart, times.stallEnd);
  if (stallRate < kMinThroughput * steadyRate) problems.push(`${stallRate.toFixed(0)} cycles/s during the stall, under ${kMinThroughput} of the fault-free ${steadyRate.toFixed(0)}`);
  const failures: Record<string, number> = {};
  for (const report of output.reports) for (const [code, n] of Object.entries(report.errors)) failures[code] = (failures[code] ?? 0) + n;
  const failed = Object.values(failures).reduce((a, b) => a + b, 0);
  if (failed > 0) problems.push(`${failed} failed cycles (${JSON.stringify(failures)}): the other four masters are a quorum`);

  const mb = (n: number): string => `${n.toFixed(0)} MB`;
  console.log(`stall-memory: ${load.workers} workers × ${load.concurrency} in flight, ${load.keys.toLocaleString('en-US')} keys; master 2 ${values['no-fault'] ? 'left running (--no-fault) for the' : 'stopped for'} ` +
    `${((times.stallEnd - times.stallStart) / 1000).toFixed(1)} s`);
  const line = (limits: MemoryLimits, f: typeof figures): string => `  ${limits.what} fault-free ${mb(f.baselineMb)}, stall peak ${mb(f.stallPeakMb)} ` +
    `(+${mb(f.stallPeakMb - f.baselineMb)}), growth in its last third ${mb(f.stallGrowthMb)}; after the resume peak ${mb(f.afterPeakMb)}, ` +
    `from ${limits.settleMs / 1000} s after it ${mb(f.settledMb)}`;
  console.log(line(kRssLimits, figures));
  console.log(line(kLiveLimits, liveFigures));
  console.log(`  cycles/s fault-free ${steadyRate.toFixed(0)}, stalled ${stallRate.toFixed(0)} (${(stallRate / steadyRate).toFixed(2)}×); failed cycles ${failed}`);
  if (values.json !== undefined) {
    await writeFile(values.json, `${JSON.stringify({ format: 'pipelock-faults-stall', version: 1, short, load, times, figures, liveFigures, steadyRate, stallRate, failures, problems, samples, live, seconds }, null, 2)}\n`);
  }
} finally {
  await masters.close();
}
if (problems.length > 0) {
  console.error(`faults stall-memory: FAIL: ${problems.join('; ')}`);
  process.exit(1);
}
console.log('faults stall-memory: ok');
