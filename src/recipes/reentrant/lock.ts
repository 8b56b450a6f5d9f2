import { ReentrancyError, type ExecutionStats } from '../../errors.js';
import type { Lock, RedlockAbortSignal } from '../../lifecycle/lock.js';
import type { ReleaseResult } from '../../lifecycle/release-result.js';
import type { Holding } from './holding.js';
import { kAsyncDispose } from '../../util/dispose.js';

type ReleaseSettings = Parameters<Lock['release']>[0];
type ExtendSettings = Parameters<Lock['extend']>[1];

/** One holder's handle on a reentrant lock; nested handles share the outermost's lock, token, fence and signal. */
export class ReentrantLock {
  /** The resources this holder asked for (for a nested holder, a subset of the outermost's). */
  readonly resources: readonly string[];
  /** True for the handle whose acquisition went to the masters; its release is the one that deletes the keys. */
  readonly outermost: boolean;
  readonly #holding: Holding;
  readonly #lock: Lock;
  #released = false;

  /** @internal Handles come from ReentrantRedlock.acquire() and using(). */
  constructor(holding: Holding, lock: Lock, resources: readonly string[], outermost: boolean) {
    this.#holding = holding;
    this.#lock = lock;
    this.resources = resources;
    this.outermost = outermost;
  }

  /** The shared lock's token (the outermost acquisition's). */
  get value(): string {
    return this.#lock.value;
  }

  /** The outermost acquisition's fencing token: a nested holder acts inside the same lock, so under the same fence. */
  get fence(): number | undefined {
    return this.#lock.fence;
  }

  /** Aborts when the shared lock is lost (LockLostError), or its outermost `using` ended with this inside (ReentrancyError). */
  get signal(): RedlockAbortSignal {
    return this.#holding.signal;
  }

  /** Milliseconds of validity the shared lock has left; 0 once it is released or lost. */
  get validity(): number {
    return this.#holding.ended ? 0 : this.#lock.validity;
  }

  /** node-redlock's per-attempt stats of the outermost acquisition (a nested one made none of its own). */
  get attempts(): ReadonlyArray<Promise<ExecutionStats>> {
    return this.outermost ? this.#lock.attempts : [];
  }

  /** Handles of this context that hold the shared lock now, this one included if not released. */
  get holders(): number {
    return this.#holding.holders;
  }

  /** A nested holder lets go locally (undefined); the outermost releases, refused while nested holders remain. */
  release(settings?: ReleaseSettings): Promise<ReleaseResult | undefined> {
    if (this.#released) return Promise.resolve(undefined);
    if (!this.outermost) {
      this.#released = true;
      this.#holding.leave();
      return Promise.resolve(undefined);
    }
    return this.#releaseOutermost(false, settings);
  }

  /** `await using held = await reentrant.acquire(…)`: release() at scope end; a second dispose sends nothing. */
  async [kAsyncDispose](): Promise<void> {
    await this.release();
  }

  /** @internal The outermost `using` scope ended: released even with nested holders inside (see Holding.release). */
  end(): Promise<ReleaseResult | undefined> {
    if (this.#released) return Promise.resolve(undefined);
    if (!this.outermost) return this.release();
    return this.#releaseOutermost(true, undefined);
  }

  /** Only the outermost may extend (in place): a shorter duration from inside would cut its promised validity. */
  async extend(duration: number, settings?: ExtendSettings): Promise<this> {
    if (!this.outermost)
      throw new ReentrancyError(`a nested holder of ${this.resources.join(', ')} cannot extend the shared lock; it is auto-extended, and `
        + `only the outermost holder may extend it`, this.resources);
    await this.#holding.extend(duration, settings);
    return this;
  }

  async #releaseOutermost(force: boolean, settings: ReleaseSettings): Promise<ReleaseResult> {
    // Marked before the call only when it cannot be refused: a refused release leaves the handle held.
    if (force || this.#holding.holders <= 1) this.#released = true;
    return this.#holding.release(force, settings);
  }
}
