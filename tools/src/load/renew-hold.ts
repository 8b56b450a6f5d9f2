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
 * A lock held for the whole run whose release at the end was not confirmed by a quorum (its keys
 * expire by themselves). It was held: counting it as a hold never had would misreport the renewal
 * this mode measures (25,000 releases at once on a CPU-starved machine timed out on every master),
 * and hiding it would make "errors none" lie; so it counts as held and shows under errors.
 */
export class UnconfirmedReleaseError extends Error {
  override readonly name = 'UnconfirmedReleaseError';
  readonly code = 'ERR_LOAD_RELEASE_UNCONFIRMED';

  constructor(cause: unknown) {
    super('the lock was held until the run ended, but its release was not confirmed by a quorum', { cause });
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
    out.acquireMs = acquired - start;
    out.extendMs = -1;
    out.attempts = lock.attempts.length;
    out.releaseMs = 0;
  }
  // Lost as the run ended: nothing left to release.
  if (signal.aborted) return;
  const releasing = performance.now();
  try {
    await lock.release();
  } catch (error) {
    throw new UnconfirmedReleaseError(error);
  }
  out.releaseMs = performance.now() - releasing;
}
