import type { PipelockError } from '../errors.js';
import type { Lock, LockLostHandler } from './lock.js';

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
