import { held, release, type Cycle, type CycleContext, type Timings } from './cycle.js';
import type { Operation } from './options.js';
import { renewHold } from './renew-hold.js';

export function cycleFor(operation: Operation): Cycle {
  switch (operation) {
    case 'acquire-release':
      return acquireRelease;
    case 'acquire-extend-release':
      return acquireExtendRelease;
    case 'using':
      return usingCycle;
    case 'renew-hold':
      return renewHold;
  }
}

async function acquireRelease(context: CycleContext, resources: readonly string[], start: number, out: Timings): Promise<void> {
  const lock = await context.acquire(resources, context.lockMs, context.call);
  const acquired = performance.now();
  await held(context);
  await release(lock, out);
  out.acquireMs = acquired - start;
  out.extendMs = -1;
  out.attempts = context.countAttempts ? lock.attempts.length : 1;
}

async function acquireExtendRelease(context: CycleContext, resources: readonly string[], start: number, out: Timings): Promise<void> {
  const lock = await context.acquire(resources, context.lockMs, context.call);
  const acquired = performance.now();
  await held(context);
  const extending = performance.now();
  const extended = await lock.extend(context.lockMs, context.call);
  out.extendMs = performance.now() - extending;
  await release(extended, out);
  out.acquireMs = acquired - start;
  out.attempts = context.countAttempts ? lock.attempts.length : 1;
}

async function usingCycle(context: CycleContext, resources: readonly string[], start: number, out: Timings): Promise<void> {
  let acquired = 0;
  let releasing = 0;
  // using() exposes no lock: acquire is timed to the routine's start, release from its end.
  await context.using(resources, context.lockMs, context.call, async () => {
    acquired = performance.now();
    await held(context);
    releasing = performance.now();
  });
  out.acquireMs = acquired - start;
  out.extendMs = -1;
  out.releaseMs = performance.now() - releasing;
  out.attempts = 1;
}
