/**
 * BENCHMARKS.md's flush-window section from bench/results/flush-window.json: a bench:peers run of pipelock
 * beside `pipelock-flush-<µs>` (bench/peers/flush-delay.ts) at each concurrency; docs/decisions/0013 reads it.
 */
import { configById } from './contender.js';
import { flushDelayOf } from './flush-delay.js';
import type { PeersResult, RunRecord } from './harness.js';
import type { RunResult } from './run-one.js';

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const fixed = (value: number, digits = 1): string => value.toFixed(digits);

/** One row per configuration and hold: medians over the repetitions, cycles/s as the median of paired ratios to pipelock. */
export function renderFlushWindow(result: PeersResult): string {
  const runs = result.runs.filter((run): run is RunRecord & RunResult => run.error === undefined && run.cyclesPerSec !== undefined);
  const out = [
    '## The flush window: holding a flush against the write floor', '',
    `\`${result.plan.command}\` (${result.host.date.slice(0, 10)}, pipelock ${result.host.pipelock}; a hold turns the event loop until `
      + 'it has passed, bench/peers/flush-delay.ts). "none" is pipelock as shipped (a microtask while at most 4 operations are out '
      + 'on a master, else the next I/O phase); a hold of 0 µs is always the next I/O phase. Medians of the repetitions; cycles/s as the '
      + 'median of paired ratios to "none"; writes and reads are the client\'s system calls per cycle per master (/proc/self/io). '
      + 'Why no hold is kept: docs/decisions/0013.', '',
    '| configuration | hold | cycles/s | × none | client µs/cycle | masters µs/cycle | client + masters | acquire p50 µs | release p50 µs | writes | reads |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const config of result.plan.configs) {
    const base = runs.filter((run) => run.config === config && run.contender === 'pipelock');
    for (const contender of result.plan.contenders) {
      const mine = runs.filter((run) => run.config === config && run.contender === contender);
      if (mine.length === 0) continue;
      const delay = flushDelayOf(contender);
      const paired = mine.flatMap((run) => {
        const other = base.find((b) => b.rep === run.rep);
        return other === undefined ? [] : [run.cyclesPerSec / other.cyclesPerSec];
      });
      const m = (pick: (run: RunResult) => number): number => median(mine.map(pick));
      out.push(`| ${configById(config).label} | ${delay === undefined ? 'none' : `${delay} µs`} | ${Math.round(m((r) => r.cyclesPerSec))} | `
        + `${paired.length === 0 ? '–' : fixed(median(paired), 2)} | ${fixed(m((r) => r.clientCpuUsPerCycle))} | ${fixed(m((r) => r.redisCpuUsPerCycle))} | `
        + `${fixed(m((r) => r.clientCpuUsPerCycle + r.redisCpuUsPerCycle))} | ${m((r) => r.acquire.p50)} | ${m((r) => r.release.p50)} | `
        + `${fixed(m((r) => r.syscallsPerCyclePerMaster?.write ?? NaN), 4)} | ${fixed(m((r) => r.syscallsPerCyclePerMaster?.read ?? NaN), 4)} |`);
    }
  }
  out.push('');
  return out.join('\n');
}
