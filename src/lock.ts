import type { Attempt } from './attempt.js';
import type { ExecutionStats } from './errors.js';
import type { CallSettings } from './options.js';
import type { Redlock } from './redlock.js';
import type { ReleaseResult } from './release-result.js';
import type { Held } from './renewal.js';

/** node-redlock's signal: aborted when the lock is lost, with the reason also at `error`. */
export type RedlockAbortSignal = AbortSignal & { error?: Error };

/**
 * A held lock. node-redlock's shape (`resources`, `value`, `attempts`, `expiration`, `release()`,
 * `extend()`) plus the remaining validity on the monotonic clock.
 */
export class Lock {
  /** Epoch ms at which the lock stops being valid (node-redlock's field); 0 once released, lost or replaced by extend(). */
  expiration: number;
  /** Aborts (with a typed reason, also at `signal.error`) when an auto-extended lock is lost; undefined without autoExtend. */
  readonly signal: RedlockAbortSignal | undefined;
  /** @internal The renewal scheduler's entry of an auto-extended lock. */
  readonly held: Held | undefined;
  #validUntil: number;
  #extensions: number;
  readonly #attempts: readonly Attempt[];
  #stats: ReadonlyArray<Promise<ExecutionStats>> | undefined;

  /** @internal Locks come from Redlock.acquire() and extend(). */
  constructor(
    readonly redlock: Redlock,
    readonly resources: readonly string[],
    /** The lock's token: 160 random bits, unique to the acquisition. */
    readonly value: string,
    attempts: readonly Attempt[],
    validUntil: number,
    extensions: number,
    now: number,
    held?: (lock: Lock) => Held,
    /** With `fencing: true`: a token greater than that of every earlier acquisition of these resources. */
    readonly fence?: number,
  ) {
    this.#attempts = attempts;
    this.#validUntil = validUntil;
    this.#extensions = extensions;
    this.expiration = Date.now() + (validUntil - now);
    this.held = held?.(this);
    this.signal = this.held?.controller.signal;
  }

  /** performance.now() instant at which the lock stops being valid. */
  get validUntil(): number {
    return this.#validUntil;
  }

  /** How many extensions led to this lock (0 for a fresh acquisition; auto-extended locks count their renewals). */
  get extensions(): number {
    return this.#extensions;
  }

  /** @internal An auto-extended lock is renewed in place. */
  renewed(validUntil: number, now: number): void {
    this.#validUntil = validUntil;
    this.#extensions++;
    this.expiration = Date.now() + (validUntil - now);
  }

  /** @internal */
  lost(): void {
    this.expiration = 0;
  }

  /** Milliseconds of validity left on the monotonic clock; 0 once expired, released or replaced. */
  get validity(): number {
    if (this.expiration === 0) return 0;
    return Math.max(0, this.validUntil - performance.now());
  }

  /** node-redlock's per-attempt stats; each promise resolves when all masters of that attempt answered or timed out. */
  get attempts(): ReadonlyArray<Promise<ExecutionStats>> {
    return (this.#stats ??= this.redlock.executionStats(this.#attempts));
  }

  release(settings?: CallSettings): Promise<ReleaseResult> {
    return this.redlock.release(this, settings);
  }

  extend(duration: number, settings?: CallSettings): Promise<Lock> {
    return this.redlock.extend(this, duration, settings);
  }
}
