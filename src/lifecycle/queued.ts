import type { Kind } from './kind.js';
import type { Lock } from './lock.js';
import type { ResolvedCall } from './call.js';
import { Queued } from '../admission/entries.js';

/**
 * An acquire call waiting in the admission window (src/admission/window.ts) for its first turn: its
 * arguments and its caller's promise, and nothing else until it is admitted. Then `start` runs the
 * call (Redlock's attempt loop) and the caller's promise follows it.
 *
 * Why not the call's own async frame suspended at the window: a burst queues most of its calls
 * here, and each frame kept its registers, the await's closures and context, a promise for the
 * wait with its resolvers, and the call's attempt list and stats function: four times what this
 * object, the caller's promise and its two resolvers take (docs/decisions/0002-acquire-memory.md).
 */
export class QueuedAcquisition extends Queued {
  #resolve: ((lock: Promise<Lock>) => void) | undefined;
  #reject: ((error: Error) => void) | undefined;

  constructor(
    keys: number,
    deadline: number,
    readonly resources: readonly string[],
    readonly duration: number,
    readonly call: ResolvedCall,
    readonly kind: Kind | undefined,
    readonly counters: readonly string[] | undefined,
    readonly start: (queued: QueuedAcquisition) => Promise<Lock>,
  ) {
    super(keys, deadline);
  }

  /** The caller's promise: settled by `refuse`, or by the call `admit` starts. */
  answer(): Promise<Lock> {
    return new Promise<Lock>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  admit(): void {
    this.#resolve?.(this.start(this));
  }

  refuse(error: Error): void {
    this.#reject?.(error);
  }
}
