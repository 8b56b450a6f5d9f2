import { setTimeout as delay } from 'node:timers/promises';
import { ReentrantRedlock, type Redlock, type ReentrantLock } from '../../../src/index.js';
import { ReleasedExpiredError, type CycleContext, type CustomCycleFactory, type Timings } from '../../../tools/src/load/cycle.js';
import { attemptsOf } from '../../../tools/src/load/meter.js';
import { enterSection, openSafety, type Safety } from './critical-section.js';

/** Nesting depth of every section: the outermost acquisition and two levels inside it. */
export const kDepth = 3;

// The worker's Redlock reaches the cycle, not the factory: one reentrant view per Redlock.
const views = new WeakMap<Redlock, ReentrantRedlock>();

/** The load worker's entry: every cycle of the run is one reentrant critical section (see below). */
const factory: CustomCycleFactory = async (data, { index, prefix }) => {
  const safety = await openSafety(data, index, prefix);
  const { log } = safety;
  return {
    cycle: (context, resources, start, out) => reentrantSection(safety, context, resources, start, out),
    close: () => {
      log.close();
    },
  };
};
export default factory;

/**
 * A reentrant critical section: each cycle is its own context (run()), a contender of this worker
 * thread as another async chain would be. The ledger row spans the outermost holding only — entry
 * after the outermost acquisition, exit before its release — because that is the claim: no two
 * contexts inside at once. Inside, the section nests kDepth − 1 more acquisitions (a using, and in it
 * two forked children that each acquire again, so the nest is held by siblings at once) and makes
 * its two fenced writes from the innermost handles: their fence is the outermost's, so the fenced
 * log's order checks the nest's writes against every other context's. A pending stall (GC pause) is
 * taken inside, as in critical-section.ts.
 */
async function reentrantSection(safety: Safety, context: CycleContext, resources: readonly string[], start: number, out: Timings): Promise<void> {
  let reentrant = views.get(context.redlock);
  if (reentrant === undefined) views.set(context.redlock, (reentrant = new ReentrantRedlock(context.redlock)));
  const view = reentrant;
  const { ledger } = safety;
  await view.run(async () => {
    let outer: ReentrantLock;
    try {
      outer = await view.acquire(resources, context.lockMs, { ...context.call, fencing: true });
    } catch (error) {
      ledger.countAttempts(attemptsOf(error));
      throw error;
    }
    const acquired = performance.now();
    const { row, resource, entry } = enterSection(safety, resources, outer);
    await view.using(resources, context.lockMs, async () => {
      const innermost = async (write: (fence: number) => Promise<void>): Promise<void> => {
        const handle = await view.acquire(resources, context.lockMs, { fencing: true });
        await write(handle.fence!);
        await handle.release();
      };
      await innermost(async (fence) => {
        ledger.wrote(row, await safety.log.write(resource, fence, entry));
      });
      // Two children of the context at depth kDepth at once: the same owner, both inside.
      await Promise.all([
        innermost(async () => {
          if (context.holdMs > 0) await delay(context.holdMs);
        }),
        innermost(async (fence) => {
          if (context.holdMs > 0) await delay(context.holdMs);
          ledger.committed(row, await safety.log.write(resource, fence, entry));
        }),
      ]);
    });
    ledger.exit(row);
    out.acquireMs = acquired - start;
    out.extendMs = -1;
    out.attempts = outer.attempts.length;
    const releasing = performance.now();
    const result = await outer.release();
    out.releaseMs = performance.now() - releasing;
    if (result?.expired === true) throw new ReleasedExpiredError();
  });
}
