import type { CycleContext, Timings } from './cycle.js';

/**
 * An acquisition that had not completed when the run ended: in renew-hold every slot is meant to
 * hold its lock for the whole run, so one still acquiring is a lock not held, and counted as such
 * (before, it was aborted unseen and the report could say "errors none" over 0 locks held).
 */
export class StillAcquiringError extends Error {
  override readonly name = 'StillAcquiringError';
  readonly code = 'ERR_LOAD_STILL_ACQUIRING';

  constructor(cause: unknown) {
    super('the acquisition was still pending (waiting or retrying) when the run ended', { cause });
  }
}

/**
 * renew-hold: many long-held locks, kept alive by pipelock's renewal scheduler while the run
 * lasts (`acquire(…, { autoExtend: true })`). Renewals happen inside pipelock and are not timed
 * here; a lost lock (its signal aborts) fails the cycle.
 */
export async function renewHold(context: CycleContext, resources: readonly string[], start: number, out: Timings): Promise<void> {
  let lock;
  try {
    lock = await context.acquire(resources, context.lockMs, { ...context.call, autoExtend: true });
  } catch (error) {
    if (context.call.signal?.aborted === true) throw new StillAcquiringError(error);
    throw error;
  }
  const acquired = performance.now();
  const signal = lock.signal!;
  const lost = new Promise<never>((_, reject) => {
    signal.addEventListener('abort', () => {
      reject(signal.reason as Error);
    }, { once: true });
  });
  try {
    await Promise.race([context.stopped, lost]);
  } finally {
    const releasing = performance.now();
    if (!signal.aborted) await lock.release();
    out.acquireMs = acquired - start;
    out.extendMs = -1;
    out.releaseMs = performance.now() - releasing;
    out.attempts = lock.attempts.length;
  }
}
