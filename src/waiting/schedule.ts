import { sleep as pause } from '../util/time.js';
import { kMaxTimerMs } from '../util/alarm.js';
import { LockAbortedError, type ExecutionStats } from '../errors.js';

/** retryDelay ± retryJitter, uniformly random, never negative nor longer than a timer can wait. */
export function retryWait(retryDelay: number, retryJitter: number): number {
  return Math.min(kMaxTimerMs, Math.max(0, retryDelay + (Math.random() * 2 - 1) * retryJitter));
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
 * node-redlock's retry loop for extend and release: `tryOnce(tries)` resolves with the outcome, or undefined to retry
 * after retryDelay ± retryJitter, at most `retryCount` times. A wait past `room()` is cut (`past: 'cut'`) or ends the
 * schedule (`'stop'`). Resolves undefined without an outcome; rejects with LockAbortedError on `signal`.
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
