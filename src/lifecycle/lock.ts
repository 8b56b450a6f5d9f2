import type { Attempt } from '../engine/attempt.js';
import type { ExecutionStats, PipelockError } from '../errors.js';
import type { MasterSet } from '../engine/masters.js';
import { settle, type Voted } from '../engine/records.js';
import type { Redlock } from '../redlock.js';
import type { ReleaseResult } from './release-result.js';
import { OP_EXTEND, OP_RELEASE, type OpCode } from '../protocol/batch-script.js';

/** @internal The script operations that extend and release a lock of one kind (src/kinds/). */
export interface LockOps {
  readonly extend: OpCode;
  readonly release: OpCode;
  /** Its keys are strings holding the token, which the lost-lock guard (watchHeld) can read. */
  readonly watchable: boolean;
}

/** @internal A mutex's (and a semaphore permit's, and a write lock's: each is a string key holding the token). */
export const MUTEX_OPS: LockOps = Object.freeze({ extend: OP_EXTEND, release: OP_RELEASE, watchable: true });

/** Called when an auto-extended lock is lost; must not throw (what it throws is reported as an 'error' event). */
export type LockLostHandler = (lock: Lock, error: PipelockError) => void;

// The settings of release() and extend() are Redlock's CallSettings, named through Redlock so that
// this file needs nothing from options.ts (whose CallSettings names LockLostHandler, above).
type ReleaseSettings = Parameters<Redlock['release']>[1];
type ExtendSettings = Parameters<Redlock['extend']>[2];

/** @internal What a Lock knows of its entry in the renewal scheduler (renewal.ts's Held). */
export interface Renewing {
  readonly signal: RedlockAbortSignal;
  /** Takes the lock out of the scheduler without releasing it (release; run-once's done-marker). */
  stop(): void;
}

/** node-redlock's signal: aborted when the lock is lost, with the reason also at `error`. */
export type RedlockAbortSignal = AbortSignal & { error?: Error };

/**
 * A held lock. node-redlock's shape (`resources`, `value`, `attempts`, `expiration`, `release()`,
 * `extend()`) plus the remaining validity on the monotonic clock.
 */
export class Lock {
  /** Epoch ms at which the lock stops being valid (node-redlock's field); 0 once released, lost or replaced by extend(). */
  expiration: number;
  /** @internal The renewal scheduler's entry of an auto-extended lock (set once, by the scheduler). */
  held: Renewing | undefined;
  /** @internal How this kind of lock is extended and released (a read lock's differ). */
  ops: LockOps = MUTEX_OPS;
  /** @internal performance.now() when the chain of local handovers that led to it began (src/lifecycle/handover.ts); 0: taken from the masters. */
  chain = 0;
  /** @internal extend() calls in flight: while any is, the lock is not passed on as it stands (src/lifecycle/handover.ts). */
  extending = 0;
  /** @internal Passed to a waiter of this process with its keys (src/lifecycle/handover.ts): release() sends nothing for it. */
  passedOn = false;
  readonly #masters: MasterSet;
  #validUntil: number;
  #extensions: number;
  /** The attempts of the acquisition (or extension); complete ones as compact records (attemptCompleted). */
  #attempts: readonly Voted[];
  #stats: ReadonlyArray<Promise<ExecutionStats>> | undefined;

  /** @internal Locks come from Redlock.acquire() and extend(). */
  constructor(
    readonly redlock: Redlock,
    masters: MasterSet,
    readonly resources: readonly string[],
    /** The lock's token: 160 random bits, unique to the acquisition. */
    readonly value: string,
    attempts: readonly Attempt[],
    validUntil: number,
    extensions: number,
    now: number,
    /** With `fencing: true`: a token greater than that of every earlier acquisition of these resources. */
    readonly fence?: number,
  ) {
    this.#masters = masters;
    this.#attempts = attempts;
    // Won at the quorum, the last attempt usually still waits for the other masters' replies.
    const last = attempts.at(-1);
    if (last !== undefined && last.pending !== 0) last.keeper = this;
    else this.attemptCompleted();
    this.#validUntil = validUntil;
    this.#extensions = extensions;
    this.expiration = Date.now() + (validUntil - now);
  }

  /** @internal Every master answered the last attempt (or timed out): keep records, not Attempts. */
  attemptCompleted(): void {
    this.#attempts = settle(this.#attempts);
  }

  /** Aborts (with a typed reason, also at `signal.error`) when an auto-extended lock is lost; undefined without autoExtend. */
  get signal(): RedlockAbortSignal | undefined {
    return this.held?.signal;
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
    return (this.#stats ??= this.#masters.stats(this.#attempts));
  }

  release(settings?: ReleaseSettings): Promise<ReleaseResult> {
    return this.redlock.release(this, settings);
  }

  extend(duration: number, settings?: ExtendSettings): Promise<Lock> {
    return this.redlock.extend(this, duration, settings);
  }
}
