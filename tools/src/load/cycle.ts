/** The shape of a load cycle and what it runs with (types and helpers shared by every cycle). */
import { setTimeout as delay } from 'node:timers/promises';
import type { CallSettings, Lock, Redlock } from 'pipelock';

/** Takes the lock of the run's kind (--kind) on `resources` for the cycle. */
export type Acquire = (resources: readonly string[], duration: number, settings: CallSettings) => Promise<Lock>;
/** using() of the run's kind. */
export type Using = <T>(resources: readonly string[], duration: number, settings: CallSettings, routine: () => Promise<T>) => Promise<T>;

/** What a cycle needs besides its key; one per worker. */
export interface CycleContext {
  readonly redlock: Redlock;
  readonly acquire: Acquire;
  readonly using: Using;
  readonly lockMs: number;
  /** The mean hold, ms (an open loop sizes its room for cycles in flight by it). */
  readonly holdMs: number;
  /** This cycle's hold, ms: a draw from the entry's hold distribution. */
  readonly hold: () => number;
  /** Carries the worker's stop signal: a stop cancels waiting and retrying. */
  readonly call: CallSettings;
  /** Resolves when the run ends (renew-hold holds its locks until then). */
  readonly stopped: Promise<void>;
  /** Read lock.attempts only when retries are possible: it builds a promise per attempt. */
  readonly countAttempts: boolean;
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

/** A release that found the lock gone is a failed cycle too: the hold was not protected to its end. */
export class ReleasedExpiredError extends Error {
  override readonly name = 'ReleasedExpiredError';
  readonly code = 'ERR_LOAD_RELEASED_EXPIRED';

  constructor() {
    super('release found the lock already expired (is --hold close to --lock-duration?)');
  }
}

/** Holds the lock for a draw of the context's hold time. */
export async function held(context: CycleContext): Promise<void> {
  const ms = context.hold();
  if (ms > 0) await delay(ms);
}

export async function release(lock: Lock, out: Timings): Promise<void> {
  const releasing = performance.now();
  const result = await lock.release();
  out.releaseMs = performance.now() - releasing;
  if (result.expired) throw new ReleasedExpiredError();
}

/** A cycle a worker builds from a CustomTask's module, and what to close when the worker ends. */
export interface CustomCycle {
  readonly cycle: Cycle;
  close(): void | Promise<void>;
}

/** The default export of a CustomTask's module: builds the cycle in a worker from the task's data. */
export type CustomCycleFactory = (data: unknown, worker: { readonly index: number; readonly prefix: string }) => Promise<CustomCycle>;
