import type { Stage } from './scenario.js';

/** A stretch of the run, ms from its start, whose target moves linearly from v0 to v1. */
interface Segment {
  readonly from: number;
  readonly ms: number;
  readonly v0: number;
  readonly v1: number;
  /** Open loop: cycles due before it (the integral of the rate up to `from`). */
  readonly before: number;
}

/**
 * The run's targets over time: the warm-up at the first stage's starting value, then each stage.
 * An open loop reads it as a rate and asks when its i-th cycle is due (the inverse of the rate's
 * integral, so a ramp's cycles come ever closer together); a closed loop reads it as the number of
 * slots that may run. The last stage's target holds past the planned end (a stop moves the end earlier).
 */
export class Plan {
  readonly #segments: Segment[] = [];
  #cursor = 0;

  /** `scale` turns a stage target into this worker's share (the rate ÷ workers, per ms). */
  constructor(warmupMs: number, stages: readonly Stage[], scale = 1) {
    let from = 0;
    let before = 0;
    const first = stages[0]!;
    let previous = first.ramp ? 0 : first.target * scale;
    const add = (ms: number, v0: number, v1: number): void => {
      this.#segments.push({ from, ms, v0, v1, before });
      from += ms;
      before += ((v0 + v1) / 2) * ms;
    };
    if (warmupMs > 0) add(warmupMs, previous, previous);
    for (const stage of stages) {
      const target = stage.target * scale;
      add(stage.durationMs, stage.ramp ? previous : target, target);
      previous = target;
    }
    add(Infinity, previous, previous);
  }

  /** The target at `t` ms from the start. */
  valueAt(t: number): number {
    const s = this.#find(t);
    return s.ms === Infinity || s.ms === 0 ? s.v1 : s.v0 + ((s.v1 - s.v0) * (t - s.from)) / s.ms;
  }

  /** Cycles due before `t` ms from the start (open loop). */
  countTo(t: number): number {
    const s = this.#find(t);
    const tau = t - s.from;
    const slope = s.ms === Infinity || s.ms === 0 ? 0 : (s.v1 - s.v0) / s.ms;
    return s.before + s.v0 * tau + (slope * tau * tau) / 2;
  }

  /** When the cycle at count `x` is due, ms from the start (Infinity: never). Calls must not go back in x by much (a cursor). */
  dueAt(x: number): number {
    const segments = this.#segments;
    while (this.#cursor > 0 && segments[this.#cursor]!.before > x) this.#cursor--;
    while (this.#cursor < segments.length - 1 && segments[this.#cursor + 1]!.before <= x) this.#cursor++;
    const s = segments[this.#cursor]!;
    const n = x - s.before;
    const slope = s.ms === Infinity || s.ms === 0 ? 0 : (s.v1 - s.v0) / s.ms;
    if (slope === 0) return s.v0 > 0 ? s.from + n / s.v0 : Infinity;
    // v0 τ + slope τ² / 2 = n, the root in the segment.
    return s.from + (-s.v0 + Math.sqrt(s.v0 * s.v0 + 2 * slope * n)) / slope;
  }

  #find(t: number): Segment {
    const segments = this.#segments;
    let k = segments.length - 1;
    while (k > 0 && segments[k]!.from > t) k--;
    return segments[k]!;
  }
}

/** The stage a time falls in, ms from the start of the measured window; −1 before it, the last stage after it. */
export function stageAt(stages: readonly Stage[], ms: number): number {
  if (ms < 0) return -1;
  let end = 0;
  for (let i = 0; i < stages.length; i++) {
    end += stages[i]!.durationMs;
    if (ms < end) return i;
  }
  return stages.length - 1;
}
