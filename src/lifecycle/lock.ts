import { kAttemptCompleted, type Attempt, type CompletionKeeper } from '../engine/attempt.js';
import { kKeysHeld } from '../engine/leftovers.js';
import type { MasterSet } from '../engine/masters.js';
import { settle, type Voted } from '../engine/records.js';
import type { ExecutionStats, PipelockError } from '../errors.js';
import { OP_EXTEND, OP_RELEASE, type OpCode } from '../protocol/opcodes.js';
import type { Settings } from '../settings.js';
import type { ReleaseResult } from './release-result.js';
import { kAsyncDispose } from '../util/dispose.js';

/** Per-call settings of acquire / extend / release / using. */
export interface CallSettings extends Partial<Pick<Settings, 'driftFactor' | 'retryCount' | 'retryDelay' | 'retryJitter'
  | 'automaticExtensionThreshold' | 'nodeTimeout' | 'maxExtensions' | 'maxHoldTime' | 'acquireTimeout' | 'watchHeld'>> {
  /** Cancels waiting and retrying; a lock won after the signal fired is released, not returned. */
  readonly signal?: AbortSignal | undefined;
  /**
   * acquire(): keep the lock alive with the renewal scheduler until release(); `lock.signal` aborts
   * if it is lost. It is renewed when less than max(duration/3, automaticExtensionThreshold) remains.
   * @default false
   */
  readonly autoExtend?: boolean | undefined;
  /**
   * acquire(): give the lock a fencing token (`lock.fence`) greater than every earlier acquisition's
   * of the same resources, across the quorum; costs one more round trip. @default false
   */
  readonly fencing?: boolean | undefined;
  /** acquire() with autoExtend: called once if the lock is lost (besides `lock.signal`). */
  readonly onLockLost?: LockLostHandler | undefined;
}

/** Called when an auto-extended lock is lost; must not throw (what it throws is reported as an 'error' event). */
export type LockLostHandler = (lock: Lock, error: PipelockError) => void;

/** node-redlock's signal: aborted when the lock is lost, with the reason also at `error`. */
export type RedlockAbortSignal = AbortSignal & {
  /** Why the lock was lost (also the signal's `reason`). */
  error?: Error;
};

/** What a Lock's own release() and extend() call (node-redlock's `lock.redlock`): an interface, so nothing imports the facade. */
export interface LockOwner {
  /** Releases `lock`. */
  release(lock: Lock, settings?: CallSettings): Promise<ReleaseResult>;
  /** Extends `lock`. */
  extend(lock: Lock, duration: number, settings?: CallSettings): Promise<Lock>;
}

/** The script operations that extend and release a lock of one kind (src/kinds/). */
export interface LockOps {
  readonly extend: OpCode;
  readonly release: OpCode;
  /** Its keys are strings holding the token, which the lost-lock guard (watchHeld) can read. */
  readonly watchable: boolean;
}

/** A mutex's (and a semaphore permit's, and a write lock's: each is a string key holding the token). */
export const MUTEX_OPS: LockOps = Object.freeze({ extend: OP_EXTEND, release: OP_RELEASE, watchable: true });

/** What a Lock knows of its entry in the renewal scheduler (src/lifecycle/hold.ts). */
export interface Renewing {
  readonly signal: RedlockAbortSignal;
  /** extend() sends an extension of `duration`: renewed for it from now on; returns the extension's epoch. */
  retime(duration: number): number;
  /** The extension of that epoch was confirmed until `until`; false if the lock was released or lost meanwhile. */
  extended(until: number, epoch: number, now: number): boolean;
  /** Takes the lock out of the scheduler without releasing it (release; run-once's done-marker). */
  stop(): void;
}

// The lock lifecycle's own state on a Lock, under module symbols that src/index.ts does not export:
// not reachable as ordinary properties (undici keeps its internals the same way, lib/core/symbols.js).
/** The renewal scheduler's entry of an auto-extended lock. */
export const kRenewal = Symbol('pipelock.renewal');
/** How this kind of lock is extended and released (a read lock's differ). */
export const kOps = Symbol('pipelock.ops');
/** performance.now() when the chain of local handovers that led to it began (src/waiting/handover.ts); 0: taken from the masters. */
export const kChain = Symbol('pipelock.chain');
/** extend() calls in flight: while any is, the lock is not passed on as it stands. */
export const kExtending = Symbol('pipelock.extending');
/** Passed to a waiter of this process with its keys: release() sends nothing for it. */
export const kPassedOn = Symbol('pipelock.passedOn');
/** An auto-extended lock renewed in place: `(validUntil, now)`. */
export const kRenewed = Symbol('pipelock.renewed');
/** The lock was lost: its expiration reads 0. */
export const kLost = Symbol('pipelock.lost');
/** A renewal of the lock was refused on a quorum; whether a force-release says why is being read. */
export const kRefused = Symbol('pipelock.refused');

/** The Lock extend() made of each lock it replaced: beside the locks, not a field (most are never extended; 0002). */
const replacements = new WeakMap<Lock, Lock>();

/** extend() replaced `old` (its expiration now 0) by `next`. */
export function replaced(old: Lock, next: Lock): void {
  replacements.set(old, next);
}

/** The Lock a local waiter made of a lock passed to it (src/waiting/handover.ts); disposing this one spares it. */
const heirs = new WeakMap<Lock, Lock>();

/** release() passed `from`'s keys to a waiter, which holds them as `to`. */
export function passedTo(from: Lock, to: Lock): void {
  heirs.set(from, to);
}

/** The last Lock of the chain of replacements and passes that starts at `lock`. */
function lastHolder(lock: Lock): Lock {
  let last = lock;
  for (let next = replacements.get(last) ?? heirs.get(last); next !== undefined; next = replacements.get(last) ?? heirs.get(last))
    last = next;
  return last;
}

/**
 * A held lock. node-redlock's shape (`resources`, `value`, `attempts`, `expiration`, `release()`,
 * `extend()`) plus the remaining validity on the monotonic clock.
 */
export class Lock implements CompletionKeeper {
  /** Epoch ms at which the lock stops being valid (node-redlock's field); 0 once released, lost or replaced by extend(). */
  expiration: number;
  /** @hidden Internal state of the lock lifecycle, keyed by a symbol the package does not export. */
  [kRenewal]: Renewing | undefined;
  /** @hidden Internal state of the lock lifecycle, keyed by a symbol the package does not export. */
  [kOps]: LockOps = MUTEX_OPS;
  /** @hidden Internal state of the lock lifecycle, keyed by a symbol the package does not export. */
  [kChain] = 0;
  /** @hidden Internal state of the lock lifecycle, keyed by a symbol the package does not export. */
  [kExtending] = 0;
  /** @hidden Internal state of the lock lifecycle, keyed by a symbol the package does not export. */
  [kPassedOn] = false;
  readonly #masters: MasterSet;
  #validUntil: number;
  #extensions: number;
  /** The attempts of the acquisition (or extension); complete ones as compact records. */
  #attempts: readonly Voted[];
  #stats: ReadonlyArray<Promise<ExecutionStats>> | undefined;

  /** @internal Locks come from Redlock.acquire() and extend(). */
  constructor(
    /** The Redlock that made it (its release and extend). */
    readonly redlock: LockOwner,
    masters: MasterSet,
    /** The locked resources (the keys, before the client's key prefix). */
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
    this[kRenewal] = undefined;
    // Won at the quorum, the last attempt usually still waits for the other masters' replies.
    const last = attempts.at(-1);
    if (last !== undefined && last.pending !== 0) last.keeper = this;
    else this[kAttemptCompleted]();
    this.#validUntil = validUntil;
    this.#extensions = extensions;
    this.expiration = Date.now() + (validUntil - now);
  }

  /** Every master answered the last attempt (or timed out): keep records, not Attempts. */
  [kAttemptCompleted](): void {
    this.#attempts = settle(this.#attempts);
  }

  /** Aborts (with a typed reason, also at `signal.error`) when an auto-extended lock is lost; undefined without autoExtend. */
  get signal(): RedlockAbortSignal | undefined {
    return this[kRenewal]?.signal;
  }

  /** performance.now() instant at which the lock stops being valid. */
  get validUntil(): number {
    return this.#validUntil;
  }

  /** How many extensions led to this lock (0 for a fresh acquisition; auto-extended locks count their renewals). */
  get extensions(): number {
    return this.#extensions;
  }

  /** @hidden Internal state of the lock lifecycle, keyed by a symbol the package does not export. */
  [kRenewed](validUntil: number, now: number): void {
    this.#validUntil = validUntil;
    this.#extensions++;
    this.expiration = Date.now() + (validUntil - now);
  }

  /** @hidden Internal state of the lock lifecycle, keyed by a symbol the package does not export. */
  [kLost](): void {
    this.expiration = 0;
  }

  /** @hidden The lifecycle's internal state: a worker-renewed lock marks its cell (the main thread's see the refusal). */
  [kRefused](): void {
    // Nothing here: the scheduler's Renewal holds the refusal for the signal to read.
  }

  /**
   * @hidden Whether this lock's keys are still held here: by it, its extend() replacement or its heir (then a late
   * grant of its acquisition is not undone: src/engine/leftovers.ts).
   */
  [kKeysHeld](): boolean {
    const lock = lastHolder(this);
    // Passed to a waiter that has not yet made its Lock: the keys are that waiter's.
    return lock.validity > 0 || lock[kPassedOn];
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

  /** Releases this lock (`redlock.release(lock)`). */
  release(settings?: CallSettings): Promise<ReleaseResult> {
    return this.redlock.release(this, settings);
  }

  /** Extends this lock to `duration` ms from now and resolves with the new Lock (`redlock.extend(lock, duration)`). */
  extend(duration: number, settings?: CallSettings): Promise<Lock> {
    return this.redlock.extend(this, duration, settings);
  }

  /**
   * `await using lock = await redlock.acquire(…)`: released when the scope ends (the lock extend()
   * replaced it with, if any). Sends nothing once released or lost, so it may follow release().
   * A release that fails rejects, never vanishes: after a scope that threw, the runtime throws a
   * SuppressedError whose `error` is the release's and `suppressed` the scope's own.
   */
  async [kAsyncDispose](): Promise<void> {
    let held = replacements.get(this);
    for (let next = held; next !== undefined; next = replacements.get(next)) held = next;
    const lock = held ?? this;
    if (lock.expiration === 0) return;
    await lock.release();
  }
}
