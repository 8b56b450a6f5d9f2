import type { CycleContext, Timings } from './cycles.js';

/**
 * renew-hold: many long-held locks, kept alive by pipelock's renewal scheduler while the run
 * lasts (`acquire(…, { autoExtend: true })`). Renewals happen inside pipelock and are not timed
 * here; a lost lock (its signal aborts) fails the cycle.
 */
export async function renewHold(context: CycleContext, resources: readonly string[], start: number, out: Timings): Promise<void> {
  const lock = await context.redlock.acquire(resources, context.lockMs, { ...context.call, autoExtend: true });
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
