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

/**
 * The owner of a reentrant lock is an async context: Node's counterpart of the thread id by which
 * Redisson's reentrant lock counts (a hash owner → count on the master). Made by the first
 * ReentrantRedlock, and inert until a scope is entered: on Node 20 and 22 the first `run()` turns on
 * promise hooks for the whole process (a cost on every await), so a program that never uses this
 * class never pays it.
 */
let sharedContexts: AsyncLocalStorage<Context> | undefined;

/**
 * Reentrant locks over a Redlock: inside one async context (a `using()` routine or a `run()`
 * callback, and every promise chain forked from it), acquiring resources that the context already
 * holds succeeds with no network round trip and counts; the keys go when the outermost holder
 * lets go. Another context — another async chain of this process, or another process — waits as for
 * any Redlock lock: same coalesced transport, retries, wake-ups on release, renewal and fencing,
 * because the outermost acquisition *is* a `Redlock.acquire` (auto-extended) and nothing else is sent.
 *
 * Why a separate class and not a setting of Redlock: node-redlock v5 code must behave exactly as
 * before, and under a setting the same `redlock.using(['a'], …)` nested in another would silently
 * change from "waits (and times out)" to "enters", depending on a constructor far away. A caller
 * who writes `new ReentrantRedlock(redlock)` has asked for the new meaning at the call site; the
 * Redlock, its defaults and its hot path are untouched, and both can be used side by side on the
 * same masters (a plain acquisition of a resource held reentrantly waits like any other).
 *
 * Safety. The count is local: the masters hold one lock under one token for the whole nest, so
 * Redlock's argument carries over unchanged — a quorum majority holds the keys under this token,
 * no other owner (context or process) can hold them until they are released or expire, and the
 * renewal scheduler keeps them for as long as the outermost holder does. What it does not give:
 * - mutual exclusion *inside* a context. Children forked in one context (`Promise.all` in a
 *   `using`) are the same owner and may all be inside at once: that is what reentrancy means,
 *   as two Redisson calls on one thread id would be. Serialise them yourself if they conflict.
 * - a nested holder learns of a lost lock only through the signal (the outermost's, shared), as
 *   the outermost does; a holder that does not look at it acts on after the loss, as with any Redlock.
 * - protection against the holder's own pauses: the fencing token (shared by the nest) is for that.
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

  /**
   * Runs `fn` as a new owner: a fresh context that holds nothing, whatever the caller holds (as a
   * new thread would). Inside, `acquire()` and `release()` count as in a `using()` routine.
   */
  run<T>(fn: () => Promise<T>): Promise<T> {
    if (typeof fn !== 'function') return Promise.reject(new InvalidArgumentError('fn', 'must be a function', fn));
    return this.#contexts.run({ held: new Map() }, fn);
  }

  /**
   * Inside a context: when the context holds every one of `resources` under one lock, a nested
   * handle on it (no round trip; `duration` and retry settings unused, the shared lock's apply);
   * when it holds none of them, a Redlock acquisition, always auto-extended, owned by the context.
   * Resources held only in part — or spread over several locks of the context — are refused with a
   * ReentrancyError: acquiring just the missing ones would hand back one handle over two tokens,
   * two validities and two fences, and acquiring them all again would wait for the context itself.
   * Nest the acquisitions instead (each handle then is one lock). Outside any context: ReentrancyError.
   */
  acquire(resources: readonly string[], duration: number, settings?: CallSettings): Promise<ReentrantLock> {
    const context = this.#contexts.getStore();
    try {
      validateResources(resources);
      validateDuration(duration);
      this.#check(settings);
      if (context === undefined) throw new ReentrancyError('acquire() of a ReentrantRedlock must run inside its using() or run(): the owner is the async context they create', resources);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return this.#enter(context, resources, duration, settings);
  }

  /**
   * Runs `routine` holding `resources`: outside any context it starts one (the routine and all it
   * forks own the lock); inside one it joins it, so a nested `using` of held resources counts
   * instead of sending. The keys are released when the outermost scope ends — if nested holders are
   * still inside then (a child the routine did not await), their signal aborts with a
   * ReentrancyError and so does this call.
   */
  using<T>(resources: readonly string[], duration: number, settings: CallSettings, routine: (signal: RedlockAbortSignal) => Promise<T>): Promise<T>;
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

  async #enter(context: Context, resources: readonly string[], duration: number, settings: CallSettings | undefined): Promise<ReentrantLock> {
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
        throw new ReentrancyError(`a nested acquisition asked for a fencing token, but the outermost lock of ${holding.resources.join(', ')} was acquired without one`, resources);
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
      throw new ReentrancyError(`this context holds ${held.join(', ')} but not all of ${resources.join(', ')} under one lock: acquire the others in a nested call`, resources);
    }
    return found;
  }

  /** The call's settings, checked as Redlock checks them; `autoExtend: false` cannot be honoured. */
  #check(settings: unknown): void {
    resolveCall(this.redlock.settings, this.#plain, settings);
    if (isObject(settings) && settings.autoExtend === false) {
      throw new InvalidArgumentError('settings.autoExtend', 'must not be false: a reentrant lock is always auto-extended, its nested holders cannot extend it', false);
    }
  }
}
