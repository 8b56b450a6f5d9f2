import { InvalidArgumentError, QuorumUnreachableError, ResourceLockedError } from '../errors.js';
import type { Lock } from '../lifecycle/lock.js';
import { internals, Redlock } from '../redlock.js';
import { misconfigured } from '../engine/misconfigured.js';
import { stopRenewing } from '../lifecycle/renewal.js';
import { OP_INCR, OP_IS_DONE, OP_MARK_DONE } from '../protocol/opcodes.js';

/** Options of `runOnce`: the window (`windowMs` or `windowEnd`), the lease and the most attempts. */
export interface RunOnceOptions {
  /** The window is [k·windowMs, (k+1)·windowMs) of the epoch clock, e.g. 3_600_000 for hourly. */
  readonly windowMs?: number;
  /** Or the window's end as epoch ms (the window is the caller's; the job runs once before it). */
  readonly windowEnd?: number;
  /** The lease while the job runs, kept renewed by the renewal scheduler; a crashed runner's lease expires after this. */
  readonly leaseMs?: number;
  /** ShedLock's name for leaseMs (give one of them): how long the guard holds after its runner died, the crash bound. */
  readonly lockAtMostFor?: number;
  /**
   * ShedLock's lower bound, in ms from the job's start: no runner starts the job again this soon,
   * even in another window, so a runner whose clock or start is skewed (and so sees another
   * window) does not run it twice; a job that failed is not retried sooner either. At most
   * lockAtMostFor. @default 0
   */
  readonly lockAtLeastFor?: number;
  /** Runs (started attempts) per window at most; a failed or crashed run is retried by some runner until then. */
  readonly maxAttempts: number;
}

/** What `runOnce` did: the job ran here, was done or running elsewhere, ran out of attempts, or failed here. */
export type RunOnceOutcome<T> =
  | {
    /** The job ran here and returned. */
    readonly status: 'ran';
    /** What the job returned. */
    readonly value: T;
    /** Which attempt of the window this was, from 1. */
    readonly attempt: number;
    /** Whether the done-marker was written on a quorum (false: another runner may run it again). */
    readonly marked: boolean;
  }
  | {
    /** The job already ran in this window. */
    readonly status: 'already-done';
  }
  | {
    /** Another runner holds the lease now. */
    readonly status: 'running-elsewhere';
  }
  | {
    /** Some runner started the job less than lockAtLeastFor ago (in this window or, by its clock, another). */
    readonly status: 'ran-recently';
  }
  | {
    /** maxAttempts runs were started in this window; nobody runs it again. */
    readonly status: 'attempts-exhausted';
    /** How many were started. */
    readonly attempts: number;
  }
  | {
    /** The job threw here; the lease was released so another runner may retry. */
    readonly status: 'failed';
    /** What it threw. */
    readonly cause: unknown;
    /** Which attempt of the window this was, from 1. */
    readonly attempt: number;
  };

/**
 * A run-once-per-window job guard over the quorum (where SETNX + EXPIRE lets a job skip or double): a window's run
 * key with a renewed lease, an optional lower bound, an attempt count, then a done-marker for the window. Running
 * twice beats not running: an unwritten marker says `marked: false`. The steps: docs/decisions/0012, "run-once.ts".
 */
export async function runOnce<T>(redlock: Redlock, jobKey: string, options: RunOnceOptions,
  job: (signal: AbortSignal) => Promise<T>): Promise<RunOnceOutcome<T>> {
  const now = Date.now();
  const { windowEnd, lease, atLeast } = checkOptions(redlock, jobKey, options, job, now);
  const runKey = `${jobKey}:run:${windowEnd}`;
  const budget = redlock.settings.nodeTimeout;
  const masters = internals(redlock).masters;
  let lock: Lock;
  try {
    lock = await redlock.acquire([runKey], lease, { retryCount: 0, autoExtend: true });
  } catch (error) {
    if (!(error instanceof ResourceLockedError)) throw error;
    const done = masters.execute(OP_IS_DONE, [runKey], '', '0', budget);
    await done.done;
    return done.won ? { status: 'already-done' } : { status: 'running-elsewhere' };
  }
  // The lower bound is a lock of its own, one per job and not per window, never released: it
  // expires lockAtLeastFor after this start, whatever window a skewed clock puts a runner in.
  if (atLeast > 0 && !(await startedRecently(redlock, jobKey, atLeast))) {
    await lock.release();
    return { status: 'ran-recently' };
  }
  // The attempt counter outlives the window a little so that late runners still see it.
  const counted = masters.execute(OP_INCR, [`${jobKey}:attempts:${windowEnd}`], '', String(windowEnd - now + lease), budget);
  await counted.done;
  if (!counted.won) {
    await lock.release();
    throw misconfigured(counted, masters.nodes, () => masters.stats([counted]))
      ?? new QuorumUnreachableError(`could not count the attempt of ${jobKey} on a quorum`, () => masters.stats([counted]),
        masters.outcomes(counted));
  }
  const attempt = counted.value;
  if (attempt > options.maxAttempts) {
    await lock.release();
    return { status: 'attempts-exhausted', attempts: attempt - 1 };
  }
  let value: T;
  try {
    value = await job(lock.signal!);
  } catch (cause) {
    // The job's error is the outcome; a release that fails too (masters down, Redlock closed) is
    // reported beside it, and the lease then expires on its own.
    await lock.release().catch((error: unknown) => {
      internals(redlock).report(error);
    });
    return { status: 'failed', cause, attempt };
  }
  stopRenewing(lock);
  const mark = masters.execute(OP_MARK_DONE, [runKey], lock.value, String(Math.max(1, windowEnd - Date.now())), budget);
  await mark.done;
  return { status: 'ran', value, attempt, marked: mark.won };
}

/** Takes the job's lower-bound lock for `atLeast` ms; false when another runner's still holds it. */
async function startedRecently(redlock: Redlock, jobKey: string, atLeast: number): Promise<boolean> {
  try {
    await redlock.acquire([`${jobKey}:at-least`], atLeast, { retryCount: 0 });
    return true;
  } catch (error) {
    if (error instanceof ResourceLockedError) return false;
    throw error;
  }
}

function checkOptions(redlockOf: unknown, jobKey: unknown, options: unknown, job: unknown,
  now: number): { windowEnd: number; lease: number; atLeast: number } {
  if (!(redlockOf instanceof Redlock)) throw new InvalidArgumentError('redlock', 'must be a Redlock', redlockOf);
  if (typeof jobKey !== 'string' || jobKey.length === 0) throw new InvalidArgumentError('jobKey', 'must be a non-empty string', jobKey);
  if (typeof job !== 'function') throw new InvalidArgumentError('job', 'must be a function', job);
  if (typeof options !== 'object' || options === null) throw new InvalidArgumentError('options', 'must be an object', options);
  const { windowMs, windowEnd, leaseMs, lockAtMostFor, lockAtLeastFor, maxAttempts } = options as RunOnceOptions;
  if (leaseMs !== undefined && lockAtMostFor !== undefined) throw new InvalidArgumentError('options.lockAtMostFor',
    'or options.leaseMs must be given, not both (they are one setting)', lockAtMostFor);
  const leaseName = lockAtMostFor === undefined ? 'options.leaseMs' : 'options.lockAtMostFor';
  const lease = lockAtMostFor ?? leaseMs;
  if (!Number.isSafeInteger(lease) || (lease as number) <= 0)
    throw new InvalidArgumentError(leaseName, 'must be a positive safe integer of ms', lease);
  const atLeast = lockAtLeastFor ?? 0;
  if (!Number.isSafeInteger(atLeast) || atLeast < 0)
    throw new InvalidArgumentError('options.lockAtLeastFor', 'must be a safe integer of ms ≥ 0', lockAtLeastFor);
  if (atLeast > (lease as number)) throw new InvalidArgumentError('options.lockAtLeastFor',
    `must be at most ${leaseName.slice(8)} (${lease as number} ms): lockAtLeastFor ≤ lockAtMostFor`, atLeast);
  if (!Number.isSafeInteger(maxAttempts) || maxAttempts < 1)
    throw new InvalidArgumentError('options.maxAttempts', 'must be an integer ≥ 1', maxAttempts);
  if ((windowMs === undefined) === (windowEnd === undefined))
    throw new InvalidArgumentError('options.windowMs', 'or options.windowEnd must be given, not both', windowMs ?? windowEnd);
  if (windowEnd !== undefined) {
    if (!Number.isSafeInteger(windowEnd) || windowEnd <= now)
      throw new InvalidArgumentError('options.windowEnd', 'must be a future epoch time in ms', windowEnd);
    return { windowEnd, lease: lease as number, atLeast };
  }
  if (!Number.isSafeInteger(windowMs) || (windowMs as number) <= 0)
    throw new InvalidArgumentError('options.windowMs', 'must be a positive safe integer of ms', windowMs);
  return { windowEnd: (Math.floor(now / (windowMs as number)) + 1) * (windowMs as number), lease: lease as number, atLeast };
}
