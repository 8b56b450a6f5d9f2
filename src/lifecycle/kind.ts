import type { Attempt } from '../engine/attempt.js';
import type { Lock, LockOps } from './lock.js';
import type { ResolvedSettings } from '../settings.js';
import type { CallSettings } from './lock.js';
import type { OpCode } from '../protocol/opcodes.js';
import type { WaitMode } from '../waiting/waiters.js';

/**
 * One acquisition of a lock that is not a plain mutex (a semaphore permit, a read or a
 * write lock), as Redlock's acquire loop needs it: the loop, the window, waiting, the quorum,
 * validity, the undo of a failed attempt and renewal are the mutex's; only the script operation,
 * its keys and what the won lock holds differ. Made per acquire() call: a semaphore's slot choice
 * changes from attempt to attempt.
 */
export interface Kind {
  /** 'semaphore', 'read lock', 'write lock' (messages). */
  readonly name: string;
  /** The name the caller gave (traces). */
  readonly resource: string;
  /** The batch script's operation and its keys, sent to every master. */
  readonly opcode: OpCode;
  readonly keys: readonly string[];
  /** The next attempt's extra script argument and its expected reply (Attempt.target). */
  readonly extra: string;
  readonly target: number;
  /** The keys the lock holds if the next attempt wins: those it extends, releases, and undoes on a loss. */
  readonly lockKeys: readonly string[];
  /** How the won lock is extended and released. */
  readonly ops: LockOps;
  /** The keys a refused caller sleeps on: their release (or expiry) may let it in. */
  readonly waitKeys: readonly string[];
  /** How a refused caller waits beside the other callers of its process (src/waiting/waiters.ts). */
  readonly waiting: WaitMode;
  /** An attempt was refused: true to try again at once (a quorum offered something else to take). */
  refused(attempt: Attempt): boolean;
}

/** Bad `permits` and friends: a positive safe integer. */
export function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) > 0;
}

/** What the kinds (src/kinds/) acquire through: the acquire loop below them, not the facade above. */
export interface KindHost {
  readonly settings: ResolvedSettings;
  /** node-redlock's 'error' event, for a failure with no caller to throw to. */
  report(error: unknown): void;
  acquireKind(kind: Kind, duration: number, settings?: CallSettings): Promise<Lock>;
}
