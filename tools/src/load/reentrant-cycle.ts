import { ReentrantRedlock, type Redlock, type ReentrantLock } from 'pipelock';
import { held, ReleasedExpiredError, type CycleContext, type Timings } from './cycle.js';

// One reentrant view per worker Redlock (the cycle, not the worker, knows it).
const views = new WeakMap<Redlock, ReentrantRedlock>();

/**
 * One async context per cycle, as one request handler would be: the outermost acquisition goes to
 * the masters, the depth − 1 nested ones count locally; they are released innermost first.
 */
export async function reentrantCycle(context: CycleContext, resources: readonly string[], depth: number, start: number,
  out: Timings): Promise<void> {
  let view = views.get(context.redlock);
  if (view === undefined) views.set(context.redlock, (view = new ReentrantRedlock(context.redlock)));
  const reentrant = view;
  await reentrant.run(async () => {
    const outer = await reentrant.acquire(resources, context.lockMs, context.call);
    const acquired = performance.now();
    const nested: ReentrantLock[] = [];
    // A nested acquisition sends nothing and fails only if the lock was lost, whose keys are then
    // gone: the outermost handle is released on the success path only, as the mutex cycles do.
    try {
      for (let level = 1; level < depth; level++) nested.push(await reentrant.acquire(resources, context.lockMs, context.call));
      await held(context);
    } finally {
      for (const handle of nested.reverse()) await handle.release();
    }
    const releasing = performance.now();
    const result = await outer.release();
    out.releaseMs = performance.now() - releasing;
    if (result?.expired === true) throw new ReleasedExpiredError();
    out.acquireMs = acquired - start;
    out.extendMs = -1;
    out.attempts = context.countAttempts ? outer.attempts.length : 1;
  });
}
