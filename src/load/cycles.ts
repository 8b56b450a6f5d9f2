import { setTimeout as delay } from 'node:timers/promises';
import type { CallSettings, Lock, Redlock } from '../index.js';
import type { SafetyContext } from './critical-section.js';
import type { Operation } from './options.js';
import { renewHold } from './renew-hold.js';

/** What a cycle needs besides its key; one per worker. */
export interface CycleContext {
  readonly redlock: Redlock;
  readonly lockMs: number;
  readonly holdMs: number;
  /** Carries the worker's stop signal: a stop cancels waiting and retrying. */
  readonly call: CallSettings;
  /** Resolves when the run ends (renew-hold holds its locks until then). */
  readonly stopped: Promise<void>;
  /** Read lock.attempts only when retries are possible: it builds a promise per attempt. */
  readonly countAttempts: boolean;
  /** A safety run's ledger and fenced log (the critical-section cycle); undefined otherwise. */
  readonly safety?: SafetyContext;
}

/** A cycle's measurements, in ms; written into an object its loop reuses. */
export interface Timings {
  acquireMs: number;
  /** −1 when the operation does not extend. */
  extendMs: number;
  releaseMs: number;
  /** Acquire attempts the cycle took (1 when not counted). */
  attempts: number;
}

/** One cycle from `start` (its intended start in an open loop); throws what pipelock threw. */
export type Cycle = (context: CycleContext, resources: readonly string[], start: number, out: Timings) => Promise<void>;

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

/** A release that found the lock gone is a failed cycle too: the hold was not protected to its end. */
export class ReleasedExpiredError extends Error {
  override readonly name = 'ReleasedExpiredError';
  readonly code = 'ERR_LOAD_RELEASED_EXPIRED';

  constructor() {
    super('release found the lock already expired (is --hold close to --lock-duration?)');
  }
}

async function acquireRelease(context: CycleContext, resources: readonly string[], start: number, out: Timings): Promise<void> {
  const lock = await context.redlock.acquire(resources, context.lockMs, context.call);
  const acquired = performance.now();
  if (context.holdMs > 0) await delay(context.holdMs);
  await release(lock, out);
  out.acquireMs = acquired - start;
  out.extendMs = -1;
  out.attempts = context.countAttempts ? lock.attempts.length : 1;
}

async function acquireExtendRelease(context: CycleContext, resources: readonly string[], start: number, out: Timings): Promise<void> {
  const lock = await context.redlock.acquire(resources, context.lockMs, context.call);
  const acquired = performance.now();
  if (context.holdMs > 0) await delay(context.holdMs);
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
  await context.redlock.using(resources, context.lockMs, context.call, async () => {
    acquired = performance.now();
    if (context.holdMs > 0) await delay(context.holdMs);
    releasing = performance.now();
  });
  out.acquireMs = acquired - start;
  out.extendMs = -1;
  out.releaseMs = performance.now() - releasing;
  out.attempts = 1;
}

export async function release(lock: Lock, out: Timings): Promise<void> {
  const releasing = performance.now();
  const result = await lock.release();
  out.releaseMs = performance.now() - releasing;
  if (result.expired) throw new ReleasedExpiredError();
}
