import { publishLockLost } from './diagnostics.js';
import { ExecutionError, LockLostError } from './errors.js';
import type { Lock } from './lock.js';
import type { CallSettings } from './options.js';
import type { Redlock } from './redlock.js';

/** node-redlock's signal: aborted when the lock is lost, with the reason also at `error`. */
export type RedlockAbortSignal = AbortSignal & { error?: Error };

/**
 * Runs `routine` while keeping the lock extended: each extension is due when less than
 * `threshold` ms of validity remain. A failed extension is retried while the lock is still valid;
 * when it cannot be, the routine's signal aborts with the error. The lock is always released.
 */
export async function using<T>(
  redlock: Redlock,
  resources: readonly string[],
  duration: number,
  settings: CallSettings | undefined,
  threshold: number,
  routine: (signal: RedlockAbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const signal = controller.signal as RedlockAbortSignal;
  let lock: Lock = await redlock.acquire(resources, duration, settings);
  let timer: NodeJS.Timeout | undefined;
  let extension: Promise<void> | undefined;
  let finished = false;

  const lose = (error: Error): void => {
    signal.error = error;
    publishLockLost(resources, error);
    controller.abort(error);
  };
  const extend = async (): Promise<void> => {
    timer = undefined;
    for (;;) {
      try {
        lock = await lock.extend(duration, settings);
        if (!finished) schedule();
        return;
      } catch (error) {
        const err = error instanceof Error ? error : new Error(String(error));
        if (finished) return;
        if (lock.validity > 0 && !(err instanceof LockLostError) && err instanceof ExecutionError && err.code !== 'ERR_PIPELOCK_EXTENSION_LIMIT') continue;
        lose(err instanceof LockLostError ? err : new LockLostError(`lost ${resources.join(', ')}: ${err.message}`, [], [], { cause: err }));
        return;
      }
    }
  };
  const schedule = (): void => {
    timer = setTimeout(() => {
      extension = extend();
    }, Math.max(0, lock.validity - threshold));
  };

  schedule();
  let result: T;
  try {
    result = await routine(signal);
  } catch (error) {
    finished = true;
    await stop();
    // The routine's own error is the one to throw; a failed release is reported beside it.
    await redlock.release(lock).catch((releaseError: unknown) => { redlock.reportError(releaseError); });
    throw error;
  }
  finished = true;
  await stop();
  await redlock.release(lock);
  return result;

  async function stop(): Promise<void> {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (extension !== undefined) await extension;
  }
}
