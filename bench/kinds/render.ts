/** The kinds benchmark's settings, result shape and BENCHMARKS.md section (bench/report.ts). */
import { hostLine, type Host } from '../lib/host.js';

/** The workload: closed-loop contenders over a few semaphores, each waiting for a permit. */
export const kKinds = Object.freeze({
  masters: 5,
  keys: 4,
  permits: 8,
  concurrency: 64,
  holdMs: 1,
  ttlMs: 10_000,
  warmupMs: 1_000,
  measureMs: 4_000,
  reps: 3,
});

export const KIND_CONTENDERS: readonly { readonly id: string; readonly label: string; readonly note: string }[] = [
  { id: 'pipelock', label: '**pipelock** `redlock.semaphore()`', note: '5 masters, a permit = one of P slot keys held on a majority; waits with wake-ups and 10 ± 5 ms retries' },
  { id: 'redis-semaphore', label: 'redis-semaphore `Semaphore`', note: '1 Redis (master 0), one sorted set per key; retries every 10 ms' },
  { id: 'redis-semaphore-redlock', label: 'redis-semaphore `RedlockSemaphore`', note: '5 masters, one sorted set per key per master, majority quorum; retries every 10 ms' },
];

/** One contender's measurement (one child process). */
export interface KindRun {
  readonly contender: string;
  readonly cyclesPerSec: number;
  readonly acquireP50Ms: number;
  readonly acquireP99Ms: number;
  /** The most holders of one key at once, counted in the process (every holder is in it). */
  readonly most: number;
  /** Acquisitions that made a key's holders exceed its permits. */
  readonly overLimit: number;
  readonly errors: number;
  readonly error?: string;
}

export interface KindsResult {
  readonly kind: 'pipelock-bench-kinds';
  readonly host: Host;
  readonly settings: typeof kKinds;
  readonly runs: readonly (KindRun & { readonly rep: number })[];
  readonly finished: string;
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const int = (v: number): string => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : '–');
const ms = (v: number): string => (Number.isFinite(v) ? v.toFixed(v < 10 ? 2 : 1) : '–');

export function renderKinds(result: KindsResult): string {
  const s = result.settings;
  const out: string[] = [];
  out.push('## Semaphores: pipelock beside redis-semaphore', '');
  out.push(`\`npm run bench:kinds\` (bench/kinds/), ${hostLine(result.host)}. ${s.concurrency} closed-loop contenders in one process over ${s.keys} semaphores of ` +
    `${s.permits} permits each (${s.concurrency / s.keys} contenders per ${s.permits} permits): acquire, waiting until a permit is free → hold ${s.holdMs} ms → release. ` +
    `${s.warmupMs / 1000} s warm-up, ${s.measureMs / 1000} s measured, a fresh process per measurement, ${s.reps} repetitions interleaved; medians with min–max. ` +
    `\`× pipelock\` is the median of per-repetition ratios of the contender's cycles/s to pipelock's. "most at once" counts the holders of one key in the process between acquire and release: above ${s.permits} the semaphore admitted too many.`, '');
  out.push('| contender | cycles/s median (min–max) | × pipelock | acquire p50 / p99 ms | most at once (limit ' + String(s.permits) + ') | over-limit acquisitions | errors |', '|---|---:|---:|---:|---:|---:|---:|');
  const base = new Map(result.runs.filter((r) => r.contender === 'pipelock').map((r) => [r.rep, r.cyclesPerSec]));
  for (const contender of KIND_CONTENDERS) {
    const runs = result.runs.filter((r) => r.contender === contender.id && r.error === undefined);
    if (runs.length === 0) continue;
    const cps = runs.map((r) => r.cyclesPerSec);
    const ratios = runs.map((r) => r.cyclesPerSec / (base.get(r.rep) ?? Number.NaN)).filter(Number.isFinite);
    out.push(`| ${contender.label} | ${int(median(cps))} (${int(Math.min(...cps))}–${int(Math.max(...cps))}) | ${ratios.length > 0 ? `${median(ratios).toFixed(2)}×` : '–'} | ` +
      `${ms(median(runs.map((r) => r.acquireP50Ms)))} / ${ms(median(runs.map((r) => r.acquireP99Ms)))} | ${Math.max(...runs.map((r) => r.most))} | ` +
      `${runs.reduce((n, r) => n + r.overLimit, 0)} | ${runs.reduce((n, r) => n + r.errors, 0)} |`);
  }
  out.push('');
  for (const contender of KIND_CONTENDERS) out.push(`- ${contender.label}: ${contender.note}.`);
  out.push('- One Redis does a fifth of the work of five and tolerates no failure; it is here as the yardstick, not as a peer for the same guarantee.',
    '- No over-limit acquisition here does not make a design safe: a sorted set per master with a majority quorum can admit up to ⌊N·P/Q⌋ holders ' +
    'when the masters\' sets differ (3 masters, 2 permits: holders on {1,2}, {2,3}, {1,3}); five local masters rarely diverge. pipelock\'s slots ' +
    'are mutexes, each under Redlock\'s argument (src/kinds/semaphore.ts), and the fault suite\'s `kinds` scenario counts holders under faults.');
  const failed = result.runs.filter((r) => r.error !== undefined);
  for (const run of failed) out.push(`- ⚠ ${run.contender} repetition ${run.rep} failed: ${run.error}`);
  out.push('');
  return out.join('\n');
}
