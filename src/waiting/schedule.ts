import { onAbort } from '../util/on-abort.js';
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
export function sleep(ms: number, signal: AbortSignal | undefined, attempts: () => ReadonlyArray<Promise<ExecutionStats>>): Promise<void> {
  if (signal === undefined) return new Promise((resolve) => setTimeout(resolve, ms));
  if (signal.aborted) return Promise.reject(new LockAbortedError(signal.reason, attempts));
  return new Promise((resolve, reject) => {
    const forget = onAbort(signal, () => {
      clearTimeout(timer);
      reject(new LockAbortedError(signal.reason, attempts));
    });
    const timer = setTimeout(() => {
      forget();
      resolve();
    }, ms);
  });
}

export function isAborted(signal: AbortSignal | undefined): boolean {
  return signal !== undefined && signal.aborted;
}
