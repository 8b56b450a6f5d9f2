import * as hdr from 'hdr-histogram-js';

export type Histogram = hdr.Histogram;

/** Latencies are recorded in µs; anything above a minute is clamped to it (and counted). */
export const kHighestUs = 60_000_000;
const kDigits = 3;

/** The percentiles every summary and table shows. */
export const PERCENTILES = [50, 90, 99, 99.9] as const;

export interface LatencySummary {
  readonly count: number;
  readonly mean: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly p999: number;
  readonly max: number;
}

export function createHistogram(): Histogram {
  // Fixed range, no auto-resize: every histogram of every run encodes the same layout, so a merge is an exact add.
  return hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: kHighestUs,
    numberOfSignificantValueDigits: kDigits, autoResize: false });
}

/** A histogram plus how many of its values were clamped to kHighestUs. */
export class Recorder {
  readonly histogram: Histogram = createHistogram();
  clamped = 0;

  /** Records a duration given in ms (performance.now() differences) as whole µs, at least 1. */
  recordMs(ms: number): void {
    let us = Math.round(ms * 1000);
    if (us < 1) us = 1;
    else if (us > kHighestUs) {
      us = kHighestUs;
      this.clamped++;
    }
    this.histogram.recordValue(us);
  }
}

export function encode(histogram: Histogram): string {
  return hdr.encodeIntoCompressedBase64(histogram);
}

export function decode(encoded: string): Histogram {
  return hdr.decodeFromCompressedBase64(encoded);
}

/** Decodes and adds every encoded histogram into a fresh one. */
export function mergeEncoded(encoded: Iterable<string>): Histogram {
  const total = createHistogram();
  for (const one of encoded) {
    const histogram = decode(one);
    total.add(histogram);
    histogram.destroy();
  }
  return total;
}

export function summarize(histogram: Histogram): LatencySummary {
  const count = histogram.totalCount;
  if (count === 0) return { count: 0, mean: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 };
  return {
    count,
    mean: Math.round(histogram.mean),
    p50: histogram.getValueAtPercentile(50),
    p90: histogram.getValueAtPercentile(90),
    p99: histogram.getValueAtPercentile(99),
    p999: histogram.getValueAtPercentile(99.9),
    // From the buckets, like every other figure here, so it reads the same after encode/decode or a merge.
    max: histogram.getValueAtPercentile(100),
  };
}

/** Points for a percentile plot: x = 1/(1 − p) (so 90 %, 99 %, 99.9 % are evenly spaced on a log axis), y = µs. */
export function percentileCurve(histogram: Histogram): { x: number[]; y: number[] } {
  const x: number[] = [];
  const y: number[] = [];
  if (histogram.totalCount === 0) return { x, y };
  for (let nines = 0; nines <= 5; nines++) {
    for (const step of [0, 0.25, 0.5, 0.75]) {
      const missing = 10 ** -(nines + step);
      if (nines === 5 && step > 0) break;
      x.push(1 / missing);
      y.push(histogram.getValueAtPercentile(100 * (1 - missing)));
    }
  }
  return { x, y };
}
