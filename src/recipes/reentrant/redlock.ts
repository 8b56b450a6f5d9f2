import { AsyncLocalStorage } from 'node:async_hooks';
import { InvalidArgumentError, LockAbortedError, ReentrancyError } from '../../errors.js';
import type { RedlockAbortSignal } from '../../lifecycle/lock.js';
import { validateDuration, validateResources } from '../../settings.js';
import { asError, isObject } from '../../util/checks.js';
import { holding, routineOf, type Routine } from '../../lifecycle/using.js';
import { plainCall, resolveCall, type ResolvedCall } from '../../lifecycle/call.js';
import { type CallSettings } from '../../lifecycle/lock.js';
import { internals, Redlock } from '../../redlock.js';
import { Holding, type Context } from './holding.js';
import { ReentrantLock } from './lock.js';

/** The owner of a reentrant lock is an async context; inert until a scope is entered (promise hooks cost every await). */
let sharedContexts: AsyncLocalStorage<Context> | undefined;

/**
 * Reentrant locks over a Redlock: inside one async context, acquiring what the context holds succeeds with no round
 * trip and counts; the keys go when the outermost lets go. Other contexts wait as for any Redlock lock, since the
 * outermost acquisition is a `Redlock.acquire`. Children forked in one context are one owner and may be inside at
 * once. A class of its own so node-redlock code keeps its meaning; why, and the safety argument:
 * docs/decisions/0012, "reentrant/redlock.ts".
 */
export class ReentrantRedlock {
  /** The Redlock it is a view over (its masters, settings and renewal scheduler). */
  readonly redlock: Redlock;
  readonly #plain: ResolvedCall;
  readonly #contexts: AsyncLocalStorage<Context>;

  constructor(redlock: Redlock) {
    if (!(redlock instanceof Redlock)) throw new InvalidArgumentError('redlock', 'must be a Redlock', redlock);
    this.redlock = redlock;
    // One store for every view, so a context is one owner everywhere; its holdings are kept per
    // Redlock (Context.held), so views of one Redlock count together and other Redlocks apart.
    this.#contexts = (sharedContexts ??= new AsyncLocalStorage<Context>());
    this.#plain = plainCall(redlock.settings);
  }

  /** Runs `fn` as a new owner, holding nothing whatever the caller holds; inside, acquire() and release() count. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    if (typeof fn !== 'function') return Promise.reject(new InvalidArgumentError('fn', 'must be a function', fn));
    return this.#contexts.run({ held: new Map() }, fn);
  }

  /**
   * Inside a context: a nested handle when it holds all of `resources` under one lock (no round trip), an
   * auto-extended acquisition when it holds none; ReentrancyError when it holds them in part (nest the acquisitions
   * instead) or outside any context.
   */
  acquire(resources: readonly string[], duration: number, settings?: CallSettings): Promise<ReentrantLock> {
    const context = this.#contexts.getStore();
    try {
      validateResources(resources);
      validateDuration(duration);
      this.#check(settings);
      if (context === undefined)
        throw new ReentrancyError('acquire() of a ReentrantRedlock must run inside its using() or run(): the owner is the async '
          + 'context they create', resources);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return this.#enter(context, resources, duration, settings);
  }

  /**
   * Runs `routine` holding `resources`, starting a context or joining the current one. The keys go when the outermost
   * scope ends; nested holders still inside then abort with ReentrancyError, and so does this call.
   */
  using<T>(resources: readonly string[], duration: number, settings: CallSettings,
    routine: (signal: RedlockAbortSignal) => Promise<T>): Promise<T>;
  using<T>(resources: readonly string[], duration: number, routine: (signal: RedlockAbortSignal) => Promise<T>): Promise<T>;
  using<T>(
    resources: readonly string[],
    duration: number,
    settingsOrRoutine: CallSettings | ((signal: RedlockAbortSignal) => Promise<T>),
    routine?: (signal: RedlockAbortSignal) => Promise<T>,
  ): Promise<T> {
    let settings: CallSettings | undefined;
    let fn: Routine<T>;
    try {
      ({ settings, fn } = routineOf(settingsOrRoutine, routine));
    } catch (error) {
      return Promise.reject(asError(error));
    }
    const scoped = async (): Promise<T> => {
      const handle = await this.acquire(resources, duration, settings);
      return holding({ signal: handle.signal, release: () => handle.end() }, fn, internals(this.redlock).report);
    };
    return this.#contexts.getStore() === undefined ? this.#contexts.run({ held: new Map() }, scoped) : scoped();
  }

  async #enter(context: Context, resources: readonly string[], duration: number,
    settings: CallSettings | undefined): Promise<ReentrantLock> {
    for (;;) {
      const holding = this.#find(context, resources);
      if (holding === undefined) break;
      // A sibling of this context is acquiring these resources right now: it is the same owner, so
      // wait for its outcome rather than race it over the network (and then wait for ourselves).
      if (holding.lock === undefined) {
        await holding.ready;
        continue;
      }
      if (holding.signal.aborted) throw holding.signal.error ?? new ReentrancyError('the shared lock is no longer held', resources);
      if (settings?.fencing === true && holding.lock.fence === undefined) {
        throw new ReentrancyError(`a nested acquisition asked for a fencing token, but the outermost lock of `
          + `${holding.resources.join(', ')} was acquired without one`, resources);
      }
      // As Redlock.acquire: a caller that already gave up gets no lock, even one that costs nothing.
      if (settings?.signal?.aborted === true) throw new LockAbortedError(settings.signal.reason, []);
      holding.holders++;
      return new ReentrantLock(holding, holding.lock, resources, false);
    }
    // Registered before the first await, so a sibling that asks meanwhile waits for this one.
    const holding = new Holding(context, this.redlock, resources);
    try {
      const lock = await this.redlock.acquire(resources, duration, { ...settings, autoExtend: true });
      holding.held(lock);
      return new ReentrantLock(holding, lock, resources, true);
    } catch (error) {
      holding.failed();
      throw error;
    }
  }

  /** The one holding of the context covering all of `resources`, undefined if it covers none; a ReentrancyError between. */
  #find(context: Context, resources: readonly string[]): Holding | undefined {
    const byResource = context.held.get(this.redlock);
    if (byResource === undefined) return undefined;
    let found: Holding | undefined;
    let partial = false;
    for (const resource of resources) {
      const holding = byResource.get(resource);
      if (holding === undefined) partial = true;
      else if (found === undefined) found = holding;
      else if (found !== holding) partial = true;
    }
    if (found === undefined) return undefined;
    if (partial) {
      const held = resources.filter((resource) => byResource.has(resource));
      throw new ReentrancyError(`this context holds ${held.join(', ')} but not all of ${resources.join(', ')} under one lock: acquire the `
        + `others in a nested call`, resources);
    }
    return found;
  }

  /** The call's settings, checked as Redlock checks them; `autoExtend: false` cannot be honoured. */
  #check(settings: unknown): void {
    resolveCall(this.redlock.settings, this.#plain, settings);
    if (isObject(settings) && settings.autoExtend === false) {
      throw new InvalidArgumentError('settings.autoExtend',
        'must not be false: a reentrant lock is always auto-extended, its nested holders cannot extend it', false);
    }
  }
}
