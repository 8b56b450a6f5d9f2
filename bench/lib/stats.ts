/** Median, min and max of repeated measurements: the figures BENCHMARKS.md quotes. */
export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly n: number;
}

/** Median (mean of the middle two for an even count); NaN for no samples. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >>> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The q-quantile (0 ≤ q ≤ 1) by linear interpolation between order statistics; NaN for no samples. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const at = q * (sorted.length - 1);
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo);
}

export function spread(values: readonly number[]): Spread {
  if (values.length === 0) return { median: NaN, min: NaN, max: NaN, n: 0 };
  return { median: median(values), min: Math.min(...values), max: Math.max(...values), n: values.length };
}

/**
 * The ratio of two contenders measured in the same repetitions: the median of the per-repetition
 * ratios. Pairing A and B run back to back cancels most of what a busy machine does to both.
 */
export function pairedRatio(a: readonly number[], b: readonly number[]): number {
  const ratios: number[] = [];
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (Number.isFinite(x) && Number.isFinite(y) && y > 0) ratios.push(x / y);
  }
  return median(ratios);
}
