import { decode } from './histogram.js';
import type { OpName, RunResult } from './result.js';

/** A measured value and the range that noise alone could have put it in. */
export interface Interval {
  readonly value: number;
  readonly low: number;
  readonly high: number;
}

/** 95 %, two-sided: the normal quantile. */
const kZ = 1.96;

/**
 * Where one run's p-th percentile could lie from sampling alone: the distribution-free interval for a
 * quantile, between the order statistics of rank n·q ∓ z·√(n·q·(1 − q)) (the binomial count of values
 * below the true quantile; Conover, Practical Nonparametric Statistics, §3.2). Read from the run's own
 * histogram. Latencies within a run are not independent, so this is the least the noise can be.
 */
export function percentileInterval(result: Pick<RunResult, 'operations'>, op: OpName, percentile: number): Interval {
  const histogram = decode(result.operations[op].histogram);
  try {
    const n = histogram.totalCount;
    const value = histogram.getValueAtPercentile(percentile);
    if (n === 0) return { value, low: value, high: value };
    const q = percentile / 100;
    const spread = kZ * Math.sqrt(n * q * (1 - q));
    const rank = (r: number): number => (100 * Math.min(n, Math.max(0, r))) / n;
    const low = histogram.getValueAtPercentile(rank(Math.floor(n * q - spread)));
    // Past the last value (rank n) the interval is open-ended: the largest value measured bounds it.
    const high = histogram.getValueAtPercentile(rank(Math.ceil(n * q + spread)));
    return { value, low: Math.min(low, value), high: Math.max(high, value) };
  } finally {
    histogram.destroy();
  }
}

/**
 * Where one run's throughput could lie: its cycles/s ± z·s/√k over the k whole measured seconds of its
 * timeline (s their standard deviation). With fewer than two whole seconds there is no spread to see.
 */
export function throughputInterval(result: Pick<RunResult, 'throughput' | 'timeline'>): Interval {
  const value = result.throughput;
  const rates = result.timeline.filter((p) => !p.warmup && p.partial !== true).map((p) => p.cycles);
  if (rates.length < 2) return { value, low: value, high: value };
  const mean = rates.reduce((a, b) => a + b, 0) / rates.length;
  const variance = rates.reduce((a, r) => a + (r - mean) ** 2, 0) / (rates.length - 1);
  const half = (kZ * Math.sqrt(variance)) / Math.sqrt(rates.length);
  return { value, low: Math.max(0, value - half), high: value + half };
}

/**
 * The chance that, with no change at all, every one of m runs lands on one chosen side of all n
 * others: 1 / C(n + m, n) (the most extreme Mann–Whitney outcome). 3 against 3: 5 %; 5 against 5: 0.4 %.
 */
export function separationChance(n: number, m: number): number {
  let c = 1;
  for (let i = 1; i <= n; i++) c = (c * (m + i)) / i;
  return 1 / c;
}
