/**
 * What contention did to acquisitions: the acquire latency of those that took more than one attempt
 * next to those that won at their first, attempts per acquisition, how evenly the contenders shared
 * the lock, and what a perfect FIFO queue would have given. Every figure is kept as sums, counts,
 * extremes or an HDR histogram, so results of several workers or machines merge exactly.
 */
import { encode, mergeEncoded, summarize, type LatencySummary } from './histogram.js';
import type { HostLine } from './host.js';

/**
 * Upper bounds of the attempt buckets: none (the lock was passed on by a holder of the same process,
 * keys and all: src/waiting/handover.ts), exactly 1, 2, 3–5, 6–10; the last holds everything above 10.
 */
export const ATTEMPT_BUCKETS = [0, 1, 2, 5, 10] as const;
export const ATTEMPT_LABELS = ['0', '1', '2', '3–5', '6–10', '>10'] as const;

/** Attempts per acquisition won. */
export interface AttemptCounts {
  /** Acquisitions by the attempts they took, in ATTEMPT_LABELS' buckets. */
  readonly buckets: readonly number[];
  /** Attempts summed over every acquisition, and the most any one took. */
  readonly total: number;
  readonly max: number;
}

/** The encoded form a worker hands in: acquire latency (µs) split by whether the first attempt won. */
export interface WaitReport {
  readonly firstAttempt: string;
  readonly retried: string;
  readonly attempts: AttemptCounts;
}

export interface WaitSummary extends LatencySummary {
  /** hdr-histogram-js compressed base64, µs. */
  readonly histogram: string;
}

/**
 * Acquisitions won, split by lock.attempts: `retried` sent more than one attempt (lost to a holder,
 * then retried on its schedule or woken by a release), `firstAttempt` won with its first or with
 * none (passed the lock by a holder of its process while it waited behind it). Their counts
 * add up to the acquire row's. A first-attempt win may still have waited: with wake-ups, callers of
 * one Redlock queue behind each other for the same lock and send nothing until their turn
 * (src/waiting/wait.ts), so that wait shows in the latency, not in the attempts.
 */
export interface WaitResult {
  readonly firstAttempt: WaitSummary;
  readonly retried: WaitSummary;
  readonly attempts: AttemptCounts & { readonly mean: number };
}

/** Acquisitions won per contender (one in-flight slot of a closed loop), as sums that merge exactly. */
export interface Fairness {
  readonly contenders: number;
  /** Σx and Σx² over the contenders' counts x, and the fewest and most one contender won. */
  readonly acquisitions: number;
  readonly sumOfSquares: number;
  readonly min: number;
  readonly max: number;
  /** Jain's index (Σx)² / (n·Σx²): 1 when all won equally, 1/n when one won everything; null when none won. */
  readonly jain: number | null;
}

/** The wait a perfect FIFO queue would give, for runs with fewer keys than contenders. */
export interface FifoBound {
  /** contenders ÷ handoffs per second (completed cycles/s), µs. */
  readonly waitUs: number;
  /**
   * The acquire p99 (every acquisition won) over waitUs: with fewer keys than contenders nearly every
   * acquisition waits, and a FIFO queue bounds all of them, first attempts included (see WaitResult).
   */
  readonly acquireP99Ratio: number;
}

export function emptyAttempts(): { buckets: number[]; total: number; max: number } {
  return { buckets: ATTEMPT_LABELS.map(() => 0), total: 0, max: 0 };
}

export function bucketOf(attempts: number): number {
  const i = ATTEMPT_BUCKETS.findIndex((upper) => attempts <= upper);
  return i === -1 ? ATTEMPT_BUCKETS.length : i;
}

export function addAttempts(sets: readonly AttemptCounts[]): AttemptCounts & { readonly mean: number } {
  const sum = emptyAttempts();
  for (const set of sets) {
    set.buckets.forEach((n, i) => (sum.buckets[i] = sum.buckets[i]! + n));
    sum.total += set.total;
    sum.max = Math.max(sum.max, set.max);
  }
  const won = sum.buckets.reduce((a, b) => a + b, 0);
  return { ...sum, mean: won > 0 ? sum.total / won : 0 };
}

export function mergeWaits(sets: readonly WaitReport[]): WaitResult {
  const merged = (pick: (set: WaitReport) => string): WaitSummary => {
    const histogram = mergeEncoded(sets.map(pick));
    const summary = { ...summarize(histogram), histogram: encode(histogram) };
    histogram.destroy();
    return summary;
  };
  return { firstAttempt: merged((s) => s.firstAttempt), retried: merged((s) => s.retried),
    attempts: addAttempts(sets.map((s) => s.attempts)) };
}

/** Jain's fairness index of the given sums; null when nothing was won (0/0). */
export function jainIndex(contenders: number, sum: number, sumOfSquares: number): number | null {
  return contenders > 0 && sumOfSquares > 0 ? (sum * sum) / (contenders * sumOfSquares) : null;
}

/** Fairness of individual contenders' counts. */
export function fairnessOf(counts: readonly number[]): Fairness {
  let sum = 0;
  let sumOfSquares = 0;
  for (const x of counts) {
    sum += x;
    sumOfSquares += x * x;
  }
  const min = counts.length === 0 ? 0 : Math.min(...counts);
  const max = counts.length === 0 ? 0 : Math.max(...counts);
  return { contenders: counts.length, acquisitions: sum, sumOfSquares, min, max, jain: jainIndex(counts.length, sum, sumOfSquares) };
}

/** The union of contender sets: n, Σx and Σx² add, so the index is the one over every contender. */
export function mergeFairness(sets: readonly Fairness[]): Fairness {
  const contenders = sets.reduce((n, s) => n + s.contenders, 0);
  const acquisitions = sets.reduce((n, s) => n + s.acquisitions, 0);
  const sumOfSquares = sets.reduce((n, s) => n + s.sumOfSquares, 0);
  const sized = sets.filter((s) => s.contenders > 0);
  return {
    contenders, acquisitions, sumOfSquares,
    min: sized.length === 0 ? 0 : Math.min(...sized.map((s) => s.min)),
    max: sized.length === 0 ? 0 : Math.max(...sized.map((s) => s.max)),
    jain: jainIndex(contenders, acquisitions, sumOfSquares),
  };
}

/** A closed loop's contenders: each in-flight slot of each worker; 0 for an open loop, which has none. */
export function contendersOf(host: HostLine): number {
  const f = host.flags;
  return Number(f.rate) > 0 ? 0 : Number(f.workers) * Number(f.concurrency);
}

/**
 * In a closed loop, Little's law makes the mean cycle contenders ÷ throughput whatever the lock does;
 * a perfect FIFO queue gives every acquisition that same wait (each waits for all the others to hold
 * once), so an acquire p99 far above it is unfairness or idle handoffs, not the queue's length. With K
 * keys it is (C/K contenders per key) ÷ (X/K handoffs per key per second), the same C/X. Only for runs
 * with fewer keys than contenders: with more, most acquisitions contend with no one. Merged runs (each
 * on its own keys) give Σ contenders ÷ Σ throughput, the per-run bounds weighted by their handoffs.
 */
export function fifoBound(hosts: readonly HostLine[], throughput: number, fairness: Fairness | undefined,
  acquireP99Us: number): FifoBound | undefined {
  if (fairness === undefined || fairness.contenders === 0 || !(throughput > 0)) return undefined;
  if (!hosts.every((host) => Number(host.flags.keys) < contendersOf(host))) return undefined;
  const waitUs = (1e6 * fairness.contenders) / throughput;
  return { waitUs, acquireP99Ratio: acquireP99Us / waitUs };
}
