import type { PipelockError } from '../errors.js';
import { readClockFirst } from '../util/fresh-signal.js';
import { kRenewed, type Lock, type LockLostHandler, type RedlockAbortSignal, type Renewing } from './lock.js';

/** The settings a held lock is renewed with (a ResolvedSettings fits). */
export interface HoldSettings {
  readonly driftFactor: number;
  readonly nodeTimeout: number;
  readonly retryDelay: number;
  readonly retryJitter: number;
  readonly automaticExtensionThreshold: number;
  readonly maxExtensions: number;
  readonly maxHoldTime: number;
  /** Watch the keys for a loss between renewals (src/watch/guard.ts). */
  readonly watchHeld: boolean;
}

/** What locks are held with: this thread's Renewals or the worker's (src/lifecycle/worker/, renewal 'worker'). */
export interface Scheduler {
  /** Locks currently kept alive. */
  readonly size: number;
  /** Keeps `lock` alive from now on (autoExtend); `lock.signal` aborts if it is lost. */
  hold(lock: Lock, duration: number, s: HoldSettings, onLockLost: LockLostHandler | undefined): void;
  /** Stops everything (quit): each held lock's signal aborts with `reason`. */
  stop(reason: PipelockError): void;
  /** Resolves once the scheduler can renew (the worker thread runs); Redlock.ready() waits for it. */
  opened(): Promise<void>;
  /** After stop() and the masters' close: lets go of what the scheduler itself opened. */
  close(): Promise<void>;
}

/** Renewals asks this before each renewal (the worker's heartbeat bound); false skips it for now. */
export type MayRenew = (lock: Lock) => boolean;

/** What a held lock asks of the renewal scheduler (src/lifecycle/renewal.ts's Renewals). */
export interface RenewalHost {
  /** Its validity ran out (or its bound was reached; `early`: by the wall clock alone): it is lost. */
  expire(held: Renewal, early?: boolean): void;
  /** Out of the scheduler, not released. */
  remove(held: Renewal): void;
  /** Its validity or duration moved: due again from them. */
  reschedule(held: Renewal): void;
}

/**
 * One auto-extended lock in the scheduler: a class holding the shared settings, since every copied field or closure
 * is paid per held lock (docs/decisions/0002-acquire-memory.md).
 */
export class Renewal implements Renewing {
  /** The duration it is renewed for: the acquisition's, then the last extend()'s. */
  duration: number;
  ttlArg: string;
  /** performance.now() after which the lock is no longer renewed (maxHoldTime). */
  readonly holdUntil: number;
  /** Made when the signal is first read (using() reads it; an acquire() caller may never) or the lock is lost. */
  #controller: AbortController | undefined = undefined;
  dueAt = 0;
  /** False once released or lost. */
  active = true;
  /** Its index in the scheduler's heap; −1 while out of it (being renewed, released). */
  slot = -1;
  /** The bound was reached: at `dueAt` (the lock's expiry) the lock is reported lost, not renewed. */
  final = false;
  /** A renewal is out: `dueAt` is the lock's expiry, when it is lost unless that renewal answered first. */
  renewing = false;
  /** extend() calls sent so far; `sent` is the count the renewal out was sent after, `sentFor` its duration. */
  epoch = 0;
  /** Refused on a quorum, its force-release reason being read: lost with this on the next read of its signal. */
  refusal: PipelockError | undefined = undefined;
  sent = 0;
  sentFor = 0;

  constructor(
    readonly renewals: RenewalHost,
    readonly lock: Lock,
    duration: number,
    readonly settings: HoldSettings,
    readonly onLockLost: LockLostHandler | undefined,
    now: number,
  ) {
    this.duration = duration;
    this.ttlArg = String(duration);
    this.holdUntil = now + settings.maxHoldTime;
  }

  /** Renew below this validity: a third of the duration (Redisson's watchdog), within the threshold, never before halfway. */
  get threshold(): number {
    const d = this.duration;
    return Math.min(Math.max(d / 3, this.settings.automaticExtensionThreshold), d / 2);
  }

  get signal(): RedlockAbortSignal {
    if (this.#controller !== undefined) return this.#controller.signal;
    // Reading `aborted` reads the clock first: after a pause the scheduler's timer may not have run.
    return readClockFirst((this.#controller = new AbortController()).signal, () => { this.#check(); });
  }

  /**
   * Lost at once if out of validity. The wall clock is the second guard: the monotonic clock and the timers stop
   * while the host is suspended, the keys' TTLs do not.
   */
  #check(): void {
    if (!this.active) return;
    if (this.refusal !== undefined || performance.now() >= this.lock.validUntil) this.renewals.expire(this);
    else if (Date.now() >= this.lock.expiration) this.renewals.expire(this, true);
  }

  /** Aborts the signal, made now if it was never read (it reads aborted from then on). */
  abort(error: PipelockError): void {
    (this.#controller ??= new AbortController()).abort(error);
  }

  /** extend() sends an extension: renewed for `duration` from now on, rescheduled to the lock's validity. */
  retime(duration: number): number {
    this.duration = duration;
    this.ttlArg = String(duration);
    this.renewals.reschedule(this);
    return ++this.epoch;
  }

  /**
   * A renewal sent after `epoch` extend() calls was confirmed until `until`; one sent before a later extend() never
   * raises the validity, as that extend's shorter PEXPIRE may have run after it.
   */
  renewed(until: number, epoch: number, now: number): boolean {
    if (!this.active) return false;
    this.lock[kRenewed](epoch === this.epoch ? until : Math.min(until, this.lock.validUntil), now);
    return true;
  }

  /** extend()'s extension was confirmed: renewed (as above), then due again from the new validity. */
  extended(until: number, epoch: number, now: number): boolean {
    if (!this.renewed(until, epoch, now)) return false;
    this.renewals.reschedule(this);
    return true;
  }

  /** Takes the lock out of the scheduler without releasing it. */
  stop(): void {
    this.renewals.remove(this);
  }
}
