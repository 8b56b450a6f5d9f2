/** A scenario: stages of load over time and a weighted mix of cycles; the flags are the one-entry, one-stage case. */
import type { Kind, Operation } from './names.js';

/** Which key a cycle of an entry takes, out of `count` keys. */
export type KeyDistribution =
  | { readonly distribution: 'uniform'; readonly count: number }
  /** P(key k) ∝ 1 / (k + 1)^exponent: a few keys take most cycles, as request keys in many services do. */
  | { readonly distribution: 'zipf'; readonly count: number; readonly exponent: number }
  /** `hot` keys take `share` (0..1) of the cycles, the rest spread uniformly over the others. */
  | { readonly distribution: 'hot'; readonly count: number; readonly hot: number; readonly share: number };

/** How long a cycle holds its lock, ms. */
export type HoldDistribution =
  | { readonly distribution: 'fixed'; readonly ms: number }
  | { readonly distribution: 'uniform'; readonly min: number; readonly max: number }
  /** Exponential around `mean`, cut at `max` so that no hold outlives its lock. */
  | { readonly distribution: 'exponential'; readonly mean: number; readonly max: number };

/** One weighted kind of cycle in the mix. */
export interface MixEntry {
  readonly name: string;
  /** Share of the cycles: weight ÷ the sum of weights. */
  readonly weight: number;
  readonly operation: Operation;
  readonly kind: Exclude<Kind, 'election'>;
  readonly depth: number;
  readonly permits: number;
  readonly keys: KeyDistribution;
  readonly hold: HoldDistribution;
}

/**
 * A stretch of the measured window with its target: cycles/s over all workers (open loop) or cycles
 * in flight per worker (closed loop). `ramp`: moves linearly from the previous stage's target (the
 * first stage's from 0) to its own over its duration, as k6's ramping executors do; else holds it.
 */
export interface Stage {
  readonly durationMs: number;
  readonly target: number;
  readonly ramp: boolean;
}

/** The mean of a hold distribution, ms (what an open loop sizes its in-flight room by). */
export function meanHold(hold: HoldDistribution): number {
  switch (hold.distribution) {
    case 'fixed':
      return hold.ms;
    case 'uniform':
      return (hold.min + hold.max) / 2;
    case 'exponential':
      return hold.mean;
  }
}

/** The longest hold a distribution can draw, ms. */
export function maxHold(hold: HoldDistribution): number {
  return hold.distribution === 'fixed' ? hold.ms : hold.max;
}

/** A draw from the hold distribution, ms. */
export function holdSampler(hold: HoldDistribution): () => number {
  switch (hold.distribution) {
    case 'fixed':
      return () => hold.ms;
    case 'uniform':
      return () => hold.min + Math.random() * (hold.max - hold.min);
    case 'exponential':
      return () => Math.min(hold.max, -hold.mean * Math.log(1 - Math.random()));
  }
}

/** A stage's target at `ms` into it, given where the previous stage ended. */
export function targetAt(stage: Stage, previous: number, ms: number): number {
  return stage.ramp ? previous + ((stage.target - previous) * Math.min(ms, stage.durationMs)) / stage.durationMs : stage.target;
}

/** Describes a stage list in a line: "2s at 200/s, 2s ramp to 400/s". */
export function describeStages(stages: readonly Stage[], unit: string): string {
  return stages.map((s) => `${s.durationMs / 1000}s ${s.ramp ? 'ramp to' : 'at'} ${s.target}${unit}`).join(', ');
}

/** A mix entry in a line: "hot 10: acquire-release semaphore (4 permits), hot 10 of 10000 keys take 80%, hold exponential mean 2ms". */
export function describeEntry(e: MixEntry): string {
  const kind =
    e.kind === 'semaphore' ? `semaphore (${e.permits} permits)` : e.kind === 'reentrant' ? `reentrant (depth ${e.depth})` : e.kind;
  const k = e.keys;
  const keys = k.distribution === 'uniform' ? `${k.count} keys` : k.distribution === 'zipf' ? `zipf s=${k.exponent} over ${k.count} keys`
    : `hot ${k.hot} of ${k.count} keys take ${Math.round(100 * k.share)}%`;
  const h = e.hold;
  const hold = h.distribution === 'fixed' ? `${h.ms}ms` : h.distribution === 'uniform' ? `uniform ${h.min}–${h.max}ms`
    : `exponential mean ${h.mean}ms (≤ ${h.max}ms)`;
  return `${e.name} ${e.weight}: ${e.operation} ${kind}, ${keys}, hold ${hold}`;
}
