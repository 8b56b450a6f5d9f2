import { Queued } from '../admission/entries.js';
import type { Attempt } from '../engine/attempt.js';
import type { MasterSet } from '../engine/masters.js';
import type { ExecutionStats } from '../errors.js';
import type { HandoverTerms } from '../waiting/ticket.js';
import type { Wait } from '../waiting/wait.js';
import type { ResolvedCall } from './call.js';
import type { Kind } from './kind.js';
import type { Lock } from './lock.js';

/** node-redlock's stats of a call's attempts, for what waits and for errors. */
export type Stats = () => ReadonlyArray<Promise<ExecutionStats>>;

/**
 * One acquire call, from its arrival to its Lock or its error: what it asks for, what it sends, by
 * when, and what it has done so far (its attempts, its Wait). The acquire loop (src/lifecycle/
 * acquire.ts) keeps nothing of a call but this object.
 *
 * It is also the call's place in the admission window's queue (src/admission/window.ts) while it
 * waits for its first turn: `admit` then runs the call and the caller's promise follows it. Why not
 * the call's own async frame suspended at the window: a burst queues most of its calls there, and
 * each frame kept its registers, the await's closures and context, a promise for the wait with its
 * resolvers: four times what this object, the caller's promise and its two resolvers take
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

  /** What a lock handed over to it must be (src/lifecycle/handover.ts): its kind's terms. */
  terms(): HandoverTerms | undefined {
    return this.kind.terms(this.duration, this.ttlArg, this.call.settings);
  }

  /**
   * Its attempts' stats: made when first needed (most calls win their first attempt), and bound, not
   * an arrow: an arrow capturing the attempts moves them into a heap context kept for the whole wait
   * (docs/decisions/0002-acquire-memory.md).
   */
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
