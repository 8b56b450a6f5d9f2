/**
 * The judgement of the stall scenario's memory (bench/faults/stall.ts), sampled through a fault-free phase, a
 * stalled master and its resume: the client's RSS, and what the workers' objects keep alive (their heaps and
 * Buffers after a full collection each second). Pure, so the unit tests can feed it a leak.
 */

/** One sample: ms since the run started, and bytes. */
export interface MemorySample {
  readonly at: number;
  readonly bytes: number;
}

/** The run's instants, ms since it started. */
export interface StallTimes {
  /** The fault-free level is read from here (after the load's own warm-up) to the stall. */
  readonly steady: number;
  readonly stallStart: number;
  readonly stallEnd: number;
  readonly end: number;
}

/** In MB (2^20 bytes). */
export interface MemoryFigures {
  /** The fault-free level: the peak RSS between `steady` and the stall (a GC cycle's peak is part of the level). */
  readonly baselineMb: number;
  /** The peak RSS during the stall. */
  readonly stallPeakMb: number;
  /**
   * The median RSS of the stall's last third less that of its middle third: above zero, still
   * growing. Medians, not peaks: a garbage collector's sawtooth puts a cycle's peak in either third.
   */
  readonly stallGrowthMb: number;
  /** The peak RSS from the resume to the end. */
  readonly afterPeakMb: number;
  /** The peak from the limits' `settleMs` after the resume to the end. */
  readonly settledMb: number;
}

/** The bounds one measure of memory is judged by, and its name in what is reported. */
export interface MemoryLimits {
  readonly what: string;
  readonly overBaselineMb: number;
  readonly growthMb: number;
  readonly settleMs: number;
  readonly settledOverBaselineMb: number;
}

/**
 * RSS: what V8 chose to keep as well as what is live, so its bounds are wide (a higher allocation rate while the
 * four other masters carry the load grows the heaps V8 keeps). The scenario runs with --expose-gc, the workers
 * collecting each second, which keeps RSS near what is live; these bounds were set before that.
 */
export const kRssLimits: MemoryLimits = Object.freeze({
  what: 'RSS',
  /**
   * The stall may cost at most this over the fault-free level. 100 MB failed clean builds: 6 short runs on Valkey
   * masters on 2026-11-30 read +52 to +125 MB at both ff30f91 and 6e4b0a7, and CI's runs on Redis +33 to +107 MB,
   * with last-third growth at most 32 MB and RSS given back after the resume. A leak still fails the growth and
   * settle bounds below.
   */
  overBaselineMb: 150,
  /** Past this, RSS was still growing at the end of the stall. */
  growthMb: 40,
  /**
   * From this long after the resume, RSS is within `settledOverBaselineMb` of the fault-free level: what the stall
   * may cost, no more (V8 keeps a heap it grew while the load goes on). 100 MB failed a clean build: CI's Valkey run
   * at 6e1e63f (no client change since ff30f91) read +114 MB in the stall and +120 MB 10 s after the resume, with
   * 11 MB of last-third growth. Retention below the stall's own cost is judged by neither bound.
   */
  settleMs: 10_000,
  settledOverBaselineMb: 150,
});

/**
 * What the workers' objects keep alive, after a full collection: a stall may keep its bounded state (per Redlock up
 * to 4,096 releases not sent, src/engine/leftovers.ts, and the tokens out to the stalled master), and nothing of it
 * once the master answers again. CI's run of f6ce572 failed the RSS bound 10 s after the resume (+159 MB) where, on
 * another host, the live figure was +12 MB in the stall and back to its level a second after the resume.
 */
export const kLiveLimits: MemoryLimits = Object.freeze({
  what: 'memory in use',
  overBaselineMb: 48,
  growthMb: 8,
  settleMs: 5_000,
  settledOverBaselineMb: 8,
});

const MB = 1024 * 1024;

function median(samples: readonly MemorySample[], from: number, to: number): number {
  const inside = samples.filter((s) => s.at >= from && s.at < to).map((s) => s.bytes).sort((a, b) => a - b);
  if (inside.length === 0) return 0;
  const mid = inside.length >> 1;
  return (inside.length % 2 === 1 ? inside[mid]! : (inside[mid - 1]! + inside[mid]!) / 2) / MB;
}

function peak(samples: readonly MemorySample[], from: number, to: number): number {
  let max = 0;
  for (const s of samples) if (s.at >= from && s.at < to && s.bytes > max) max = s.bytes;
  return max / MB;
}

export function memoryFigures(samples: readonly MemorySample[], times: StallTimes, limits: MemoryLimits = kRssLimits): MemoryFigures {
  const third = (times.stallEnd - times.stallStart) / 3;
  return {
    baselineMb: peak(samples, times.steady, times.stallStart),
    stallPeakMb: peak(samples, times.stallStart, times.stallEnd),
    stallGrowthMb: median(samples, times.stallEnd - third, times.stallEnd) - median(samples, times.stallStart + third, times.stallEnd - third),
    afterPeakMb: peak(samples, times.stallEnd, times.end + 1),
    settledMb: peak(samples, times.stallEnd + limits.settleMs, times.end + 1),
  };
}

/** What the figures miss of the limits; empty: the stall's memory is bounded. */
export function memoryProblems(f: MemoryFigures, limits: MemoryLimits = kRssLimits): string[] {
  const problems: string[] = [];
  const { what } = limits;
  const over = f.stallPeakMb - f.baselineMb;
  if (over > limits.overBaselineMb) problems.push(`${what} peaked ${over.toFixed(0)} MB over its fault-free level during the stall (limit ${limits.overBaselineMb} MB)`);
  if (f.stallGrowthMb > limits.growthMb) problems.push(`${what} still grew ${f.stallGrowthMb.toFixed(0)} MB in the stall's last third (limit ${limits.growthMb} MB)`);
  const settled = f.settledMb - f.baselineMb;
  if (settled > limits.settledOverBaselineMb) {
    problems.push(`${what} was still ${settled.toFixed(0)} MB over its fault-free level ${limits.settleMs / 1000} s after the resume (limit ${limits.settledOverBaselineMb} MB)`);
  }
  return problems;
}
