import type { LatencySummary } from './histogram.js';

/** One step of a capacity sweep: the rate offered and what the masters served at it (its last run's figures). */
export interface SweepStep {
  /** Offered cycles/s (the open loop's target). */
  readonly rate: number;
  /** Whether every bound (threshold) held over the step's window: in most of its runs when it ran more than once. */
  readonly ok: boolean;
  /** Its runs (a failed first is confirmed by up to --sweep-confirm more) and how many held; absent before 2026-11-30: one run. */
  readonly runs?: number;
  readonly held?: number;
  readonly throughput: number;
  readonly cycles: number;
  readonly errors: number;
  /** Late starts ÷ cycles due (the open loop's own lateness). */
  readonly lateShare: number;
  readonly acquire: LatencySummary;
  readonly cycle: LatencySummary;
}

/** A capacity sweep: its bounds, the knee (the highest rate meeting them; null when even the first step failed) and its curve by rate. */
export interface Sweep {
  readonly bounds: readonly string[];
  readonly knee: number | null;
  readonly steps: readonly SweepStep[];
}
