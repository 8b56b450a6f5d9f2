/**
 * `npm run bench:ci`: the CI regression gate (well under 2 minutes). Against 5 local masters, at
 * 64 and 512 locks in flight, it measures figures that do not swing with the machine's neighbours
 * and fails when one is worse than bench/baseline.json allows (rule: bench/lib/baseline.ts).
 *
 *   scriptCallsPerCycle     EVALSHA/EVAL per acquire+release cycle per master (the masters' INFO
 *                           commandstats): 2 per 64 cycles at c64, about 4 per 512 at c512 (one
 *                           call per chunk of 256 keys); 1 or more without coalescing.
 *   bytesPerCycle           bytes the masters received per cycle (INFO total_net_input_bytes).
 *   allocatedBytesPerCycle  JavaScript heap allocated per cycle in the client.
 *   cpuRatio                client CPU per cycle of pipelock ÷ that of the per-command quorum
 *                           ceiling (raw @redis/client), in alternating waves in this process:
 *                           both see the same neighbours, CPU frequency and steal. Tighter at
 *                           c512; at c64 it shifts more with the machine's load.
 *   writesPerCyclePerMaster socket writes of pipelock's lean connections per cycle per master
 *                           (bench/ci/lean.ts): judged at c1 (exactly 2), printed at c64 and c512
 *                           with commands per write.
 *   throughputRatio         cycles/s of pipelock ÷ the ceiling's over the same waves: printed, and
 *                           judged only against a floor at half the baseline (it moves by tens of
 *                           % between runs on a shared 2-core VM); it catches a lock that waits.
 *
 *   node --import tsx bench/ci.ts                    compare with the committed baseline
 *   node --import tsx bench/ci.ts --write-baseline   3 runs in fresh processes, rewrite the baseline
 *
 * It runs itself under kNodeFlags. --single-threaded: V8's background threads (concurrent marking,
 * compilation) would charge their CPU to whichever wave happens to be running. --expose-gc and a
 * 64 MB semi-space: a scavenge before every wave, and none inside one (see bench/ci/measure.ts).
 *
 * Evidence (2-core AMD EPYC VM shared with other jobs, load average 2–3; issue 16). 10 clean runs,
 * 19–32 s each, all passed: script calls per master per cycle 0.0313 (c64) and 0.0079 (c512) and
 * bytes per cycle 611.0 and 602.4 in every run; allocations 11654–11702 and 11263–11301 bytes;
 * cpuRatio c64 0.600–0.629 (median 0.614), c512 0.392–0.421 (median 0.414), while pipelock's own
 * CPU per cycle moved by 2× (c64 16–38 µs). A busy-wait of 2 µs per cycle in the coalescer's flush
 * (10–16% of pipelock's client CPU at c512 in those runs) failed 5 runs of 5 on c512 cpuRatio (+11%
 * to +21% over the baseline), 3 of them on c64 too; one of 1 µs (7–9%) failed 2 of 2 (+12%, +10%).
 * Coalescing turned off failed 2 of 2 on every figure but the c64 throughput ratio: 1.000 script
 * calls per master per cycle, +74% bytes, +185% allocations, cpuRatio +119% (c64), +193% (c512).
 */
import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startMasters } from '../src/testing/masters.js';
import { baselineFigures, bestOf, compareToBaseline, cpuModelOf, figuresFor, formatVerdict, type Baseline, type BaselineFigures, type Rule, type Run } from './lib/baseline.js';
import { hostInfo, hostLine, ROOT } from './lib/host.js';
import { CounterReader } from './ci/counters.js';
import { openCeiling, openPipelock } from './ci/contenders.js';
import { runCycles } from './ci/cycles.js';
import { measureAlone, measureCounters, measureCpu } from './ci/measure.js';
import { measureLean } from './ci/lean.js';

const kNodeFlags = ['--single-threaded', '--expose-gc', '--min-semi-space-size=64', '--max-semi-space-size=64'];
/**
 * Tolerances, from the runs above. Script calls get 10% for a batch split by timing (c512 read
 * 0.0079–0.0081 that day); bytes and allocations a little over what they moved. cpuRatio: 6% at
 * c512, where clean runs stayed within 2% above the baseline's and a 15% slower client lands 9% or
 * more above it; 15% at c64, where the ratio shifts with the machine's load (0.569–0.629 over the
 * day), so there it catches only larger slowdowns, or ones per call rather than per lock (a call
 * carries 64 locks at c64, 256 at c512).
 * Later, on another machine of the same kind (kernel fc-v769 where the baseline's was fc-v595), the
 * same code (7aaed87) read c64 0.757 and c512 0.466 — +30% and +12% over that baseline — while HEAD
 * read 0.716–0.743 and 0.436–0.439 over three fresh processes. The ratio moves with the machine, not
 * only with the code: the baseline was measured again there, and the tolerances widened to 10% (c512)
 * and 20% (c64); the busy-wait above (+11% to +21% at c512) is still caught in most runs.
 */
const kRules: Readonly<Record<string, Rule>> = {
  scriptCallsPerCycle: { bound: 'max', tolerance: 0.1 },
  bytesPerCycle: { bound: 'max', tolerance: 0.02 },
  allocatedBytesPerCycle: { bound: 'max', tolerance: 0.05 },
  // One lock at a time (issue 30): the calls handed to the clients and the callbacks scheduled per
  // cycle are fixed by the code; the first extra one is a regression.
  'c1.callsPerCycle': { bound: 'max', tolerance: 0 },
  'c1.scheduledPerCycle': { bound: 'max', tolerance: 0.05 },
  // The lean connection (issue 43): one socket write per master per flush, so exactly 2 per cycle
  // alone (the acquisition's, the release's). At c64 and c512 the count follows how replies arrive
  // in chunks (each chunk's continuations are one flush), which moves with the load: printed only.
  'c1.writesPerCyclePerMaster': { bound: 'max', tolerance: 0 },
  'c1.cpuRatio': { bound: 'max', tolerance: 0.1 },
  'c512.cpuRatio': { bound: 'max', tolerance: 0.1 },
  'c64.cpuRatio': { bound: 'max', tolerance: 0.2 },
  throughputRatio: { bound: 'min', tolerance: 0.5 },
};
/** The figures that depend on the CPU model: kept per model in the baseline (bench/lib/baseline.ts). */
const kCpuMetrics = new Set(['cpuRatio']);
const ruleOf = (config: string, metric: string): Rule | undefined => kRules[`${config}.${metric}`] ?? kRules[metric];
/** Cycles per contender and concurrency before anything is measured: until then the JIT is still at work. */
const kWarmupCycles = 20_000;
/** Cycles of the counters measurement, per concurrency. */
const kCounterCycles = 20_000;
/** Alternating waves per concurrency for the CPU ratio (a wave = `concurrency` cycles of each; 64 at concurrency 1). */
const kWaves: Readonly<Record<number, number>> = { 1: 100, 64: 400, 512: 300 };
const kWaveCycles: Readonly<Record<number, number>> = { 1: 64, 64: 64, 512: 512 };
const kConcurrencies = [1, 64, 512];
/** Cycles of the counters measurement at concurrency 1 (one lock at a time: slower per cycle). */
const kAloneCycles = 4_000;
const kMasters = 5;
const kBaselineRuns = 3;
/**
 * Fresh-process re-measurements after a failed verdict. The CPU ratio moves with whatever else the
 * machine runs (a local .ci/run beside two busy processes, load average 8.8: c64 0.815 against a
 * baseline of 0.583); a slower client is slower in every run, a neighbour seldom busy in all three.
 */
const kRemeasures = 2;
const baselinePath = join(ROOT, 'bench', 'baseline.json');
const script = fileURLToPath(import.meta.url);

const { values } = parseArgs({
  options: {
    'write-baseline': { type: 'boolean', default: false },
    /** Internal: measure once and print the figures as one JSON line (--write-baseline's children). */
    'figures-only': { type: 'boolean', default: false },
  },
});

/** Runs `node [flags] bench/ci.ts args` with stdout piped (or inherited) and resolves to it. */
function child(args: readonly string[], pipe: boolean): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const flags = [...kNodeFlags.filter((flag) => !process.execArgv.includes(flag)), ...process.execArgv];
    const proc = spawn(process.execPath, [...flags, script, ...args], { cwd: ROOT, stdio: ['ignore', pipe ? 'pipe' : 'inherit', 'inherit'] });
    let out = '';
    proc.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    proc.once('close', (code) => { resolve({ code, out }); });
  });
}

async function measure(log: (line: string) => void): Promise<Run> {
  const local = await startMasters({ count: kMasters });
  const closers: (() => unknown)[] = [() => local.close()];
  try {
    const reader = await CounterReader.open(local.urls);
    closers.unshift(() => { reader.close(); });
    const pipelock = await openPipelock(local.urls);
    closers.unshift(() => pipelock.close());
    const ceiling = await openCeiling(local.urls);
    closers.unshift(() => ceiling.close());
    for (const concurrency of kConcurrencies) for (const contender of [pipelock, ceiling]) await runCycles(contender, concurrency, concurrency === 1 ? kAloneCycles : kWarmupCycles);
    const run: Record<string, Record<string, number>> = {};
    for (const concurrency of kConcurrencies) {
      const config = `c${concurrency}`;
      const cpu = await measureCpu(pipelock, ceiling, concurrency, kWaves[concurrency]!, kWaveCycles[concurrency]);
      const counters = await measureCounters(pipelock, reader, concurrency, concurrency === 1 ? kAloneCycles : kCounterCycles);
      const throughputRatio = cpu.pipelockCyclesPerSec / cpu.ceilingCyclesPerSec;
      const alone = concurrency === 1 ? await measureAlone(pipelock, pipelock.clients, kAloneCycles) : undefined;
      const lean = await measureLean(pipelock, kMasters, concurrency, concurrency === 1 ? kAloneCycles : kCounterCycles);
      run[config] = {
        scriptCallsPerCycle: counters.scriptCallsPerCycle,
        bytesPerCycle: counters.bytesPerCycle,
        allocatedBytesPerCycle: counters.allocatedBytesPerCycle,
        ...(alone === undefined ? {} : { callsPerCycle: alone.callsPerCycle, scheduledPerCycle: alone.scheduledPerCycle }),
        writesPerCyclePerMaster: lean.writesPerCyclePerMaster,
        commandsPerWrite: lean.commandsPerWrite,
        cpuRatio: cpu.ratio,
        throughputRatio,
      };
      if (alone !== undefined) log(`${config} one lock at a time: ${alone.callsPerCycle.toFixed(2)} calls handed to the clients, ${alone.scheduledPerCycle.toFixed(2)} timers and microtasks and ${alone.immediatesPerCycle.toFixed(2)} immediates (information) per cycle`);
      log(`${config} counters (pipelock, ${counters.cycles} cycles): ${counters.scriptCallsPerCycle.toFixed(4)} script calls per master, ${counters.bytesPerCycle.toFixed(1)} bytes to the masters, ${Math.round(counters.allocatedBytesPerCycle)} bytes allocated per cycle; ` +
        `information: ${counters.commandsPerCycle.toFixed(2)} commands (script-run ones included) and ${counters.redisCpuUsPerCycle.toFixed(1)} µs of Redis CPU per cycle, ${Math.round(counters.cyclesPerSec)} cycles/s`);
      log(`${config} lean connections (${concurrency === 1 ? kAloneCycles : kCounterCycles} cycles): ${lean.writesPerCyclePerMaster.toFixed(3)} socket writes and ${lean.readsPerCyclePerMaster.toFixed(3)} reply chunks (information) per cycle per master, ${lean.commandsPerWrite.toFixed(2)} commands per write`);
      log(`${config} client CPU (${cpu.waves} alternating waves): pipelock ${cpu.pipelockUs.toFixed(1)} µs, ceiling ${cpu.ceilingUs.toFixed(1)} µs per cycle; ratio ${cpu.ratio.toFixed(3)} (median per wave; quartiles ${cpu.ratioQ1.toFixed(3)}–${cpu.ratioQ3.toFixed(3)})`);
      log(`${config} throughput (same waves): pipelock ${Math.round(cpu.pipelockCyclesPerSec)} cycles/s, ceiling ${Math.round(cpu.ceilingCyclesPerSec)} cycles/s, ratio ${throughputRatio.toFixed(2)}×`);
    }
    return run;
  } finally {
    for (const close of closers) await close();
  }
}

const started = performance.now();
const seconds = (): string => `${((performance.now() - started) / 1000).toFixed(0)} s`;

if (!kNodeFlags.every((flag) => process.execArgv.includes(flag))) {
  // Started without the flags (as npm run bench:ci does): run again with them.
  const { code } = await child(process.argv.slice(2), false);
  process.exit(code ?? 1);
} else if (values['figures-only']) {
  const run = await measure((line) => { console.log(line); });
  console.log(JSON.stringify(run));
} else if (values['write-baseline']) {
  const host = hostInfo(['@redis/client'], 'npm run bench:ci -- --write-baseline');
  const runs: Run[] = [];
  for (let i = 0; i < kBaselineRuns; i++) {
    console.log(`bench:ci: baseline run ${i + 1} of ${kBaselineRuns} (a fresh process: a cold JIT, as in CI)`);
    const { code, out } = await child(['--figures-only'], true);
    const lines = out.trim().split('\n');
    for (const line of lines.slice(0, -1)) console.log(`  ${line}`);
    if (code !== 0) throw new Error(`bench:ci: baseline run ${i + 1} exited with code ${String(code)}`);
    runs.push(JSON.parse(lines.at(-1) ?? '') as Run);
  }
  const cpu = runs.map((run) => Object.entries(run).map(([config, f]) => `${config} ${f.cpuRatio?.toFixed(3) ?? '?'}`).join(', ')).join('; ');
  // Five significant digits: the exact figures keep theirs, the others move more than that.
  const all = Object.entries(baselineFigures(runs, ruleOf)).map(([config, byMetric]) => [config, Object.entries(byMetric).map(([metric, figure]) => [metric, { ...figure, baseline: Number(figure.baseline.toPrecision(5)) }] as const)] as const);
  const pick = (cpuDependent: boolean): BaselineFigures => Object.fromEntries(all.map(([config, rows]) => [config, Object.fromEntries(rows.filter(([metric]) => kCpuMetrics.has(metric) === cpuDependent))]));
  const previous = JSON.parse(await readFile(baselinePath, 'utf8').catch(() => '{"figures":{}}')) as Baseline;
  const model = cpuModelOf(previous, host.cpu) ?? host.cpu;
  // The file's other sections (bench:ci:instr's `instructions`) are kept: this run measures none of them.
  const baseline: Baseline = {
    ...previous,
    figures: pick(false),
    cpuModels: { ...previous.cpuModels, [model]: { figures: pick(true), measured: `the most lenient over ${kBaselineRuns} runs (cpuRatio: ${cpu}); ${hostLine(host)}` } },
    measured: `the most lenient value of each figure over ${kBaselineRuns} runs; ${hostLine(host)}`,
    refresh: `npm run bench:ci -- --write-baseline (${kBaselineRuns} runs in fresh processes; rewrites the figures and this CPU model's; commit the file)`,
  };
  await writeFile(baselinePath, `${JSON.stringify(baseline, null, 2)}\n`);
  console.log(`bench:ci: wrote ${baselinePath} (${seconds()})`);
} else {
  const host = hostInfo(['@redis/client'], 'npm run bench:ci');
  console.log(`host: ${hostLine(host)}`);
  const run = await measure((line) => { console.log(line); });
  await mkdir(join(ROOT, '.tmp'), { recursive: true });
  await writeFile(join(ROOT, '.tmp', 'bench-ci.json'), `${JSON.stringify({ host, run }, null, 1)}\n`);
  const baseline = JSON.parse(await readFile(baselinePath, 'utf8')) as Baseline;
  const judged = figuresFor(baseline, host.cpu);
  const boundOf = (config: string, metric: string): 'max' | 'min' | undefined => judged[config]?.[metric]?.bound;
  if (cpuModelOf(baseline, host.cpu) === undefined) console.log(`bench:ci: no client CPU baseline for "${host.cpu}" (models: ${Object.keys(baseline.cpuModels ?? {}).join(', ')}): cpuRatio is printed, not judged; record one on a quiet machine with --write-baseline`);
  const runs: Run[] = [run];
  let verdict = compareToBaseline(run, baseline, host.cpu);
  while (!verdict.ok && runs.length <= kRemeasures) {
    console.log(formatVerdict(verdict));
    console.log(`bench:ci: a figure is outside its limit; measuring again in a fresh process (${runs.length + 1} of ${kRemeasures + 1}), judging each figure by its best run`);
    const { code, out } = await child(['--figures-only'], true);
    const lines = out.trim().split('\n');
    for (const line of lines.slice(0, -1)) console.log(`  ${line}`);
    if (code !== 0) throw new Error(`bench:ci: re-measurement exited with code ${String(code)}`);
    runs.push(JSON.parse(lines.at(-1) ?? '') as Run);
    verdict = compareToBaseline(bestOf(runs, boundOf), baseline, host.cpu);
  }
  console.log(formatVerdict(verdict));
  console.log(`bench:ci: ${verdict.ok ? 'ok' : 'FAIL: a figure is worse than bench/baseline.json allows'} (${seconds()})`);
  if (!verdict.ok) process.exitCode = 1;
}
