/**
 * A place in the window's queue, told once that its turn came (`admit`) or that it leaves unsent (`refuse`). A class
 * to extend, so a queued acquisition is one object with no closure per entry.
 */
export abstract class Queued {
  /** Stops listening to the caller's signal (src/util/on-abort.ts); the window's. */
  forget: (() => void) | undefined = undefined;
  /** Left the queue (aborted): skipped when its turn comes; the window's. */
  gone = false;

  constructor(
    readonly keys: number,
    /** performance.now() by when the caller must have its answer (Infinity: no deadline). */
    readonly deadline: number,
  ) {}

  /** Its keys are in the window: send them now. */
  abstract admit(): void;
  /** Leaves the queue with nothing sent. */
  abstract refuse(error: Error): void;
}

/** A wait for room inside a running call (a retry's attempt): settles a promise. */
export class RoomWait extends Queued {
  constructor(keys: number, deadline: number, readonly resolve: () => void, readonly reject: (error: Error) => void) {
    super(keys, deadline);
  }

  admit(): void {
    this.resolve();
  }

  refuse(error: Error): void {
    this.reject(error);
  }
}
