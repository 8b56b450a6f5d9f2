import { ReentrancyError } from '../../errors.js';
import type { Lock, RedlockAbortSignal } from '../../lifecycle/lock.js';
import type { ReleaseResult } from '../../lifecycle/release-result.js';
import { readClockFirst } from '../../util/fresh-signal.js';

type ReleaseSettings = Parameters<Lock['release']>[0];
type ExtendSettings = Parameters<Lock['extend']>[1];

/** What one async context holds (the AsyncLocalStorage store): per Redlock, resource → holding. */
export interface Context {
  readonly held: Map<object, Map<string, Holding>>;
}

/** One lock held by one context and its handle count: local, as the masters see one acquisition whatever the depth. */
export class Holding {
  readonly resources: readonly string[];
  /** Handles not yet released, the outermost included. */
  holders = 0;
  /** Settles when the outermost acquisition is decided; nested callers arriving meanwhile wait on it. */
  readonly ready: Promise<void>;
  #lock: Lock | undefined;
  #ended = false;
  #settle: () => void = () => undefined;
  readonly #context: Context;
  readonly #owner: object;
  /** The signal every handle sees: the lock's, also aborted when a `using` scope ends with nested holders inside. */
  readonly #controller = new AbortController();
  /** Reading `aborted` reads the lock's first, which reads the clock: after a blocked loop no timer has run yet. */
  readonly #signal: RedlockAbortSignal = readClockFirst(this.#controller.signal, () => this.#lock?.signal?.aborted);

  constructor(context: Context, owner: object, resources: readonly string[]) {
    this.#context = context;
    this.#owner = owner;
    this.resources = resources;
    this.ready = new Promise((resolve) => (this.#settle = resolve));
    let byResource = context.held.get(owner);
    if (byResource === undefined) context.held.set(owner, (byResource = new Map<string, Holding>()));
    for (const resource of resources) byResource.set(resource, this);
  }

  /** Undefined until the outermost acquisition succeeded. */
  get lock(): Lock | undefined {
    return this.#lock;
  }

  get signal(): RedlockAbortSignal {
    return this.#signal;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** The outermost acquisition succeeded: from now on the context's nested acquisitions count here. */
  held(lock: Lock): void {
    this.#lock = lock;
    this.holders = 1;
    const own = lock.signal!;
    const follow = (): void => {
      this.#abort(own.error ?? (own.reason instanceof Error ? own.reason : new Error(String(own.reason))));
    };
    if (own.aborted) follow();
    else own.addEventListener('abort', follow, { once: true });
    this.#settle();
  }

  /** The outermost acquisition failed: the context holds nothing here; waiting nested callers try for themselves. */
  failed(): void {
    this.#end();
    this.#settle();
  }

  /** A nested handle lets go: a local decrement, no network. */
  leave(): void {
    if (!this.#ended) this.holders--;
  }

  /**
   * The outermost lets go. With nested holders inside, an explicit release is refused; a `using` scope that ended
   * forces it (else the key is held for ever), aborting the nested holders' signal with the same error first.
   */
  async release(force: boolean, settings?: ReleaseSettings): Promise<ReleaseResult> {
    const lock = this.#lock!;
    if (this.holders > 1) {
      const error =
        new ReentrancyError(`${this.holders - 1} holder(s) nested inside the outermost lock of ${this.resources.join(', ')} are not `
          + `released yet: release them first`, this.resources);
      if (!force) throw error;
      this.#abort(error);
      this.#end();
      await lock.release(settings);
      throw error;
    }
    this.#end();
    return lock.release(settings);
  }

  /** The outermost holder extends the shared lock in place (it is auto-extended, so Redlock keeps the same handle). */
  async extend(duration: number, settings?: ExtendSettings): Promise<void> {
    await this.#lock!.extend(duration, settings);
  }

  #abort(error: Error): void {
    if (this.#controller.signal.aborted) return;
    const signal: RedlockAbortSignal = this.#controller.signal;
    signal.error = error;
    this.#controller.abort(error);
  }

  /** Out of the context: a later acquisition of these resources in it goes to the masters again. */
  #end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.holders = 0;
    const byResource = this.#context.held.get(this.#owner);
    if (byResource === undefined) return;
    for (const resource of this.resources) if (byResource.get(resource) === this) byResource.delete(resource);
    if (byResource.size === 0) this.#context.held.delete(this.#owner);
  }
}
