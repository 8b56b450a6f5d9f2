import { Queued } from '../admission/entries.js';
import type { Attempt } from '../engine/attempt.js';
import type { MasterSet } from '../engine/masters.js';
import { LockAbortedError, LockExpiredError, type ExecutionStats } from '../errors.js';
import { acquireError, describeResources } from '../engine/failure.js';
import type { ForeignKeys } from '../engine/foreign.js';
import type { HandoverTerms } from '../waiting/ticket.js';
import type { Wait } from '../waiting/wait.js';
import type { ResolvedCall } from './call.js';
import type { Kind } from './kind.js';
import type { Lock } from './lock.js';

/** node-redlock's stats of a call's attempts, for what waits and for errors. */
export type Stats = () => ReadonlyArray<Promise<ExecutionStats>>;

/**
 * One acquire call, from arrival to Lock or error: all the acquire loop keeps of it. It is also its place in the
 * admission window's queue: an object rather than a suspended async frame, a quarter of its memory
 * (docs/decisions/0002-acquire-memory.md).
 */
export class Acquisition extends Queued {
  /** Its attempts so far (the stats and the Lock read them). */
  readonly attempts: Attempt[] = [];
  /** Made when the call first has to wait (with its handover terms): most calls win their first attempt. */
  wait: Wait | undefined = undefined;
  /** Its next attempt's keys are already in the window (admitted from its queue, or entered at once). */
  admitted = false;
  /** Its last won attempt's quorum answered after the lock's validity ran out. */
  expired = false;
  #stats: Stats | undefined = undefined;
  #ttl: string | undefined = undefined;
  #resolve: ((lock: Promise<Lock>) => void) | undefined = undefined;
  #reject: ((error: Error) => void) | undefined = undefined;

  constructor(
    readonly resources: readonly string[],
    readonly duration: number,
    readonly call: ResolvedCall,
    readonly kind: Kind,
    deadline: number,
    /** Runs the call (Redlock's attempt loop) once its first turn came. */
    readonly start: (acquisition: Acquisition) => Promise<Lock>,
  ) {
    super(kind.keys.length, deadline);
  }

  /** The duration as the PX argument. */
  get ttlArg(): string {
    return this.#ttl ??= String(this.duration);
  }

  /** What a lock handed over to it must be (src/waiting/handover.ts): its kind's terms. */
  terms(): HandoverTerms | undefined {
    return this.kind.terms(this.duration, this.ttlArg, this.call.settings);
  }

  /** Its attempts' stats, made when first needed and bound, not an arrow (docs/decisions/0002-acquire-memory.md). */
  stats(masters: MasterSet): Stats {
    return this.#stats ??= masters.stats.bind(masters, this.attempts);
  }

  /** The caller's promise: settled by `refuse`, or by the call `admit` starts. */
  answer(): Promise<Lock> {
    return new Promise<Lock>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  admit(): void {
    this.admitted = true;
    this.#resolve?.(this.start(this));
  }

  refuse(error: Error): void {
    this.#reject?.(error);
  }
}

/** The error of an acquisition whose schedule ended with `attempt` lost (built after its undo). */
export function acquisitionError(masters: MasterSet, a: Acquisition, attempt: Attempt, foreign: ForeignKeys): Promise<Error> | Error {
  const { settings: s, signal } = a.call;
  const stats = a.stats(masters);
  if (signal?.aborted === true) return new LockAbortedError(signal.reason, stats);
  if (a.expired)
    return new LockExpiredError(`the quorum answered after the lock's validity ran out (${a.duration} ms, driftFactor ${s.driftFactor})`,
      stats, masters.outcomes(attempt));
  const message = `could not acquire ${describeResources(a.resources)} after ${a.attempts.length} attempt(s)`;
  return acquireError(masters, message, attempt, a.resources, a.kind.foreign ? foreign : undefined, s.nodeTimeout, stats);
}
