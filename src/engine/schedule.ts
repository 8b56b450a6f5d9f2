import { sleep as pause } from '../util/time.js';
import { kMaxTimerMs } from '../util/alarm.js';
import { LockAbortedError, type ExecutionStats } from '../errors.js';

/**
 * The retry schedule, one home for every wait pipelock draws at random: node-redlock's retryDelay ± retryJitter
 * and retryCount (acquire's waiting, extend, release, a failed renewal), the loop extend and release retry on, a
 * split vote's backoff and the spread of renewals.
 */

/** retryDelay ± retryJitter, uniformly random, never negative nor longer than a timer can wait. */
export function retryWait(retryDelay: number, retryJitter: number): number {
  return Math.min(kMaxTimerMs, Math.max(0, retryDelay + (Math.random() * 2 - 1) * retryJitter));
}

/** A random backoff after `doublings` (≥ 1) consecutive collisions: uniform in [0, `baseMs` × 2^(doublings − 1)). */
export function backoff(baseMs: number, doublings: number): number {
  return Math.random() * baseMs * 2 ** (doublings - 1);
}

/** Uniform in [0, `ms`): how much earlier than due a periodic job runs, so jobs started together spread out. */
export function spread(ms: number): number {
  return Math.random() * ms;
}

/** Whether attempt number `made` (1-based) may be followed by another. */
export function mayRetry(made: number, retryCount: number): boolean {
  return retryCount === -1 || made <= retryCount;
}

/** Waits `ms`, or rejects with LockAbortedError as soon as `signal` aborts. */
export async function sleep(ms: number, signal: AbortSignal | undefined,
  attempts: () => ReadonlyArray<Promise<ExecutionStats>>): Promise<void> {
  if (!await pause(ms, signal)) throw new LockAbortedError(signal!.reason, attempts);
}

export function isAborted(signal: AbortSignal | undefined): boolean {
  return signal !== undefined && signal.aborted;
}

/** The settings a retry schedule follows (a ResolvedSettings fits). */
export interface ScheduleSettings {
  readonly retryCount: number;
  readonly retryDelay: number;
  readonly retryJitter: number;
}

/**
 * node-redlock's retry loop for extend and release (src/lifecycle/extend.ts, src/lifecycle/release.ts): `tryOnce(tries)`
 * resolves with the outcome, or undefined to retry after retryDelay ± retryJitter, at most `retryCount` times. A wait
 * past `room()` is cut (`past: 'cut'`) or ends the schedule (`'stop'`). Resolves undefined without an outcome; rejects
 * with LockAbortedError on `signal`.
 */
export async function onSchedule<T>(
  s: ScheduleSettings,
  signal: AbortSignal | undefined,
  stats: () => ReadonlyArray<Promise<ExecutionStats>>,
  room: () => number,
  past: 'cut' | 'stop',
  tryOnce: (tries: number) => Promise<T | undefined>,
): Promise<T | undefined> {
  for (let tries = 1; ; tries++) {
    const outcome = await tryOnce(tries);
    if (outcome !== undefined) return outcome;
    const wait = retryWait(s.retryDelay, s.retryJitter);
    const left = room();
    if (!mayRetry(tries, s.retryCount) || (past === 'stop' && wait >= left)) return undefined;
    await sleep(Math.min(wait, Math.max(0, left)), signal, stats);
  }
}
