import { EventEmitter } from 'node:events';
import type { RedisClientOptions } from '@redis/client';
import type { Attempt } from './engine/attempt.js';
import { checkClients, type MasterClient, type MemberEntry } from './transport/members.js';
import {
  ExecutionError, ExtensionLimitError, InvalidArgumentError, LockAbortedError, LockExpiredError, LockLostError,
  QuorumUnreachableError, RedlockClosedError, ResourceLockedError, type ExecutionStats,
} from './errors.js';
import { Lock, type RedlockAbortSignal } from './lifecycle/lock.js';
import { MasterSet } from './engine/masters.js';
import {
  isObject, kUsingMarginMs, plainCall, resolveCall, resolveSettings, validateDuration, validateResources,
  type CallSettings, type ResolvedCall, type ResolvedSettings, type Settings,
} from './settings.js';
import { describeOutcomes, describeResources } from './engine/records.js';
import { lostOnQuorum, quorumUnreachable } from './engine/quorum.js';
import { ReleaseResult } from './lifecycle/release-result.js';
import { Renewals, type Held } from './lifecycle/renewal.js';
import { isAborted, mayRetry, retryWait, sleep } from './waiting/schedule.js';
import { OP_ACQUIRE, OP_FENCED_ACQUIRE } from './protocol/batch-script.js';
import type { Kind } from './lifecycle/kind.js';
import { Semaphore } from './kinds/semaphore.js';
import { ReadWriteLock } from './kinds/rwlock.js';
import { counterKeys, raiseFence } from './lifecycle/fencing.js';
import { checkOneSlot } from './transport/cluster/slots.js';
import { createToken } from './protocol/token.js';
import { Releases } from './lifecycle/release.js';
import { misconfigured } from './lifecycle/misconfigured.js';
import { foreignHolder } from './lifecycle/foreign.js';
import { drift, validUntil } from './lifecycle/validity.js';
import { traceAcquire, traceExtend, traceRelease } from './lifecycle/channels.js';
import { AdmissionWindow } from './admission/window.js';
import { QueuedAcquisition } from './lifecycle/queued.js';
import { Pacer } from './waiting/wait.js';
import { Passed, Waiters, type HandoverTerms } from './waiting/waiters.js';
import { Guard } from './watch/guard.js';
import type { MemberWatch } from './watch/watch.js';
import { memberWatch } from './watch/hub.js';

export interface RedlockOptions extends Partial<Settings> {
  /** Extra @redis/client options for the connections pipelock opens from URLs (TLS, credentials, …). */
  readonly clientOptions?: RedisClientOptions;
}

/**
 * Redlock over N independent masters. Every operation is one Attempt sent to all masters in one
 * synchronous loop; each master's coalescer folds it into that tick's script call; the attempt
 * decides itself at the quorum. Drop-in for node-redlock v5: same constructor shape, settings,
 * methods and error classes; clients are @redis/client clients or URLs.
 */
export class Redlock extends EventEmitter {
  readonly settings: ResolvedSettings;
  /** @internal The masters, for the rooms that send through them (run-once). */
  readonly masters: MasterSet;
  readonly #renewals: Renewals;
  /** What a call without settings resolves to. */
  readonly #plain: ResolvedCall;
  /** Bounds the acquisition keys in flight; the rest wait in the client (src/admission/window.ts). */
  readonly #window = new AdmissionWindow();
  /** Refused acquisitions waiting for a release (src/waiting/); undefined with `wakeups: false` or no @redis/client master or cluster. */
  readonly #waiters: Waiters | undefined;
  readonly #releases: Releases;
  /** Watches held locks' keys (setting `watchHeld`); undefined with no @redis/client master or cluster. */
  readonly #guard: Guard<Held> | undefined;
  /** The watch of each @redis/client master or cluster (a connection per shard), opened on first use; shared by waiters and guard. */
  readonly #watches: readonly (MemberWatch | undefined)[];

  constructor(clients: Iterable<MemberEntry>, options?: RedlockOptions) {
    super();
    // JavaScript callers are not held to the types: a non-object would otherwise be spread away.
    if (options !== undefined && !isObject(options)) throw new InvalidArgumentError('settings', 'must be an object', options);
    const { clientOptions, ...settings } = (options ?? {});
    this.settings = resolveSettings(options === undefined ? undefined : settings);
    if (clientOptions !== undefined && !isObject(clientOptions)) throw new InvalidArgumentError('settings.clientOptions', 'must be an object of @redis/client options', clientOptions);
    this.masters = new MasterSet(checkClients(clients), this.settings, clientOptions, this);
    this.#plain = plainCall(this.settings);
    const sources = this.masters.watchSources();
    const watchable = sources.some((source) => source !== undefined);
    this.#watches = sources.map((source, index) => source === undefined ? undefined : memberWatch(index, source, this.#changed, this.#watchReady, this.#watchLost));
    this.#waiters = this.settings.wakeups && watchable ? new Waiters(this.#watches, this.masters.quorum, this.masters.nodes.map((node) => node.name)) : undefined;
    this.#releases = new Releases(this.masters, this.#window, this.#waiters);
    // watchHeld may be set per call, so the guard exists whenever a master can be watched; it opens nothing until used.
    this.#guard = watchable ? new Guard<Held>(this.#watches, this.masters.quorum, (held, lostOn) => { this.#renewals.lostOnWatch(held, lostOn); }) : undefined;
    this.#renewals = new Renewals(this.masters, this.settings.renewalWindow, this.#guard);
  }

  readonly #changed = (index: number, key: string | null, present: boolean): void => {
    // Only a key a waiter read present can have been released; a held lock's key counts on any change.
    this.#waiters?.changed(key, present);
    this.#guard?.changed(index, key);
  };

  readonly #watchLost = (index: number): void => {
    this.#waiters?.lost(index);
  };

  readonly #watchReady = (index: number): void => {
    this.#waiters?.watchReady();
    this.#guard?.ready(index);
  };

  /** The clients as given; for URLs, the clients pipelock opened from them. */
  get clients(): Set<MasterClient> {
    return this.masters.clients;
  }

  /** How many auto-extended locks the renewal scheduler keeps alive. */
  get autoExtended(): number {
    return this.#renewals.size;
  }

  /** floor(N/2)+1. */
  get quorum(): number {
    return this.masters.quorum;
  }

  /** Resolves once a quorum of masters is connected; rejects with QuorumUnreachableError after `timeoutMs` (Infinity: never), RedlockClosedError after quit(). */
  ready(timeoutMs = 5000): Promise<void> {
    return this.masters.ready(timeoutMs);
  }

  acquire(resources: readonly string[], duration: number, settings?: CallSettings): Promise<Lock> {
    return traceAcquire(this, this.#checkedAcquire, resources, duration, settings);
  }

  // Not async: a second async frame per call stays alive for the whole wait of a queued
  // acquisition (bench:overload at 100,000: heap peak 338–340 → 331–332 MB). Bad input still
  // rejects, never throws.
  #checkedAcquire(resources: readonly string[], duration: number, settings?: CallSettings): Promise<Lock> {
    let call: ResolvedCall;
    try {
      this.masters.assertOpen();
      validateResources(resources);
      validateDuration(duration);
      call = resolveCall(this.settings, this.#plain, settings);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return this.#acquire(resources, duration, call);
  }

  /** A counting semaphore: at most `permits` holders of `resource` at once (src/kinds/semaphore.ts). */
  semaphore(resource: string, permits: number): Semaphore {
    return new Semaphore(this, resource, permits);
  }

  /** A read/write lock on `resource`: many readers or one writer, writers preferred (src/kinds/rwlock.ts). */
  readWriteLock(resource: string): ReadWriteLock {
    return new ReadWriteLock(this, resource);
  }

  /**
   * @internal A lock of another kind (src/kinds/: semaphore permit, read or write lock), acquired
   * by the same loop as a mutex: window, waiting, quorum, validity, undo and renewal.
   */
  acquireKind(kind: Kind, duration: number, settings?: CallSettings): Promise<Lock> {
    let call: ResolvedCall;
    try {
      this.masters.assertOpen();
      validateDuration(duration);
      call = resolveCall(this.settings, this.#plain, settings);
      if (call.fencing) throw new InvalidArgumentError('settings.fencing', `is not available for a ${kind.name} (fencing tokens order the holders of one mutex)`, true);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return traceAcquire(this, this.#acquireKind, [kind.resource], duration, { call, kind });
  }

  #acquireKind(_resources: readonly string[], duration: number, how: { call: ResolvedCall; kind: Kind }): Promise<Lock> {
    return this.#acquire(how.kind.resources, duration, how.call, how.kind);
  }

  /**
   * Starts an acquisition. One that must wait for its first turn in the window (src/admission/window.ts) waits
   * there as one object (src/lifecycle/queued.ts) with no frame of its own: a burst of 100,000 queued calls
   * held 1,190 B each as suspended frames, about 300 so.
   */
  #acquire(resources: readonly string[], duration: number, call: ResolvedCall, kind?: Kind): Promise<Lock> {
    const s = call.settings;
    const signal = call.signal;
    if (isAborted(signal)) return Promise.reject(new LockAbortedError(signal?.reason, []));
    const counters = call.fencing ? counterKeys(resources, this.masters.clustered) : undefined;
    const keys = keysOf(resources, counters, kind);
    // A cluster member runs one operation's keys in one script call, so they must share a slot
    // (a semaphore's or read/write lock's keys do when its name carries a hash tag: '{jobs}').
    if (this.masters.clustered) {
      try {
        checkOneSlot(keys, resources);
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    }
    const deadline = performance.now() + s.acquireTimeout;
    // One queued behind callers of this process waiting for the same resources enters the window
    // after that wait (#attempts).
    if (Pacer.joins(this.#waiters, kind?.waitKeys ?? resources, s, kind?.waiting)) return this.#attempts(resources, duration, call, kind, keys, counters, deadline, false);
    if (this.#window.tryEnter(keys.length)) return this.#attempts(resources, duration, call, kind, keys, counters, deadline, true);
    const queued = new QueuedAcquisition(keys.length, deadline, resources, duration, call, kind, counters, this.#startQueued);
    const answer = queued.answer();
    this.#window.queue(queued, signal, noAttempts);
    return answer;
  }

  /** A queued acquisition's turn came (src/lifecycle/queued.ts): its keys are in the window. */
  readonly #startQueued = (q: QueuedAcquisition): Promise<Lock> =>
    this.#attempts(q.resources, q.duration, q.call, q.kind, keysOf(q.resources, q.counters, q.kind), q.counters, q.deadline, true);

  /** The attempts of one acquisition; `admitted`: the first one's keys are already in the window. */
  async #attempts(
    resources: readonly string[], duration: number, call: ResolvedCall, kind: Kind | undefined,
    keys: readonly string[], counters: readonly string[] | undefined, deadline: number, admitted: boolean,
  ): Promise<Lock> {
    const s = call.settings;
    const signal = call.signal;
    const attempts: Attempt[] = [];
    const ttlArg = String(duration);
    // Bound, not an arrow: an arrow capturing `this` and `attempts` moves them into a heap context
    // kept for the whole wait, and a dev loader's keepNames (tsx) gives each arrow its own property
    // store: 1,790 → 1,545 B per queued acquisition (bench:overload's 100,000-acquisition burst).
    const stats: () => ReadonlyArray<Promise<ExecutionStats>> = this.masters.stats.bind(this.masters, attempts);
    const waitKeys = kind?.waitKeys ?? resources;
    // The retry schedule is made when the call first has to wait: most calls win their first
    // attempt, and a burst of 100,000 queued acquisitions held 100,000 of them (~11 MB).
    let pacer: Pacer | undefined;
    try {
      // Queued behind callers of this process waiting for the same resources (src/waiting/wait.ts).
      if (Pacer.joins(this.#waiters, waitKeys, s, kind?.waiting)) {
        pacer = new Pacer(this.#waiters, waitKeys, s, deadline, kind?.waiting);
        pacer.terms = handoverTerms(kind, counters, duration, ttlArg, s);
        if (pacer.queued) {
          // Admitted from the window's queue after others of this process began waiting for the
          // same resources: it waits behind them, and gives its room to someone who can use it.
          if (admitted) {
            admitted = false;
            this.#window.cancel(keys.length);
          }
          await pacer.pause(signal, stats);
        }
      }
      for (;;) {
        // A holder of this process handed its lock to this call while it slept (src/waiting/
        // handover.ts): that handover was admitted and sent as the holder's release.
        const handed = pacer?.handed();
        if (handed instanceof Passed) {
          const lock = this.#passed(handed, resources, attempts, pacer!.chain);
          if (!this.masters.isClosed() && !isAborted(signal) && lock.validity > 0) {
            if (call.autoExtend) this.#renewals.hold(lock, duration, s, call.onLockLost);
            return lock;
          }
          // Given up (or closed) as it came: it goes on as any release would, to the next waiter or the masters.
          await this.#releases.release(lock, s);
          this.masters.assertOpen();
          if (isAborted(signal)) throw new LockAbortedError(signal!.reason, stats);
          continue;
        }
        // Each attempt waits for its turn in the client (src/admission/window.ts) and fails there, with
        // nothing sent, when its turn would come after `deadline` or its signal aborts first.
        if (admitted) {
          admitted = false;
        } else if (handed === undefined && !this.#window.tryEnter(keys.length)) {
          await this.#window.enter(keys.length, deadline, signal, stats);
          this.masters.assertOpen();
        }
        // The attempt's clock starts when the coalescer sends it (Attempt.sent): its per-master
        // budget counts from the send, so the time it waited for its turn is not charged to the
        // masters (a stalled master is still caught within nodeTimeout of its own silence), and
        // its validity counts from there too. That is safe: validity must start no later than the
        // moment the first master could have set a key, and no master can set a key it has not yet
        // been sent; the clock is read before the write, so validity is, if anything, underestimated.
        // A mutex's attempt that a release brought forward takes its turn at the gate (src/waiting/gate.ts).
        const gate = handed === undefined && kind === undefined && counters === undefined && pacer !== undefined ? pacer.gate : -1;
        const attempt = handed ?? (kind !== undefined
          ? this.masters.execute(kind.opcode, keys, createToken(), ttlArg, s.nodeTimeout, kind.target, kind.extra)
          : gate === -1
            ? this.masters.execute(counters === undefined ? OP_ACQUIRE : OP_FENCED_ACQUIRE, keys, createToken(), ttlArg, s.nodeTimeout)
            : this.#executeGated(gate, keys, ttlArg, s.nodeTimeout, pacer!));
        // What the lock holds if this attempt wins (a semaphore's one slot of its keys); its undo's keys.
        const held = kind === undefined ? resources : kind.resources;
        attempts.push(attempt);
        pacer?.attempted(attempt.token);
        await attempt.done;
        if (gate !== -1) pacer!.gated(attempt, gate);
        const latency = performance.now() - attempt.start;
        // A won attempt's room frees now; a lost one's once its undo is answered (below): the undo
        // is work the window admitted, and sent outside it, a burst of refusals flooded the masters
        // with undos beside the next window of attempts (their releases and retries timed out).
        if (attempt.won && handed === undefined) this.#window.decided(attempt, keys.length, latency);
        let expired = false;
        // Won after quit() began: nothing is handed out of a closed Redlock; it is undone below.
        const won = attempt.won && !this.masters.isClosed();
        const fence = won && counters !== undefined ? await raiseFence(this.masters, counters, attempt.value, s.nodeTimeout) : undefined;
        if (won && !this.masters.isClosed() && (counters === undefined || fence !== undefined)) {
          const until = validUntil(attempt.start, duration, s.driftFactor);
          const now = performance.now();
          if (until > now && !isAborted(signal)) {
            const lock = new Lock(this, this.masters, held, attempt.token, attempts, until, 0, now, fence);
            if (kind !== undefined) lock.ops = kind.ops;
            else if (handed !== undefined) lock.chain = pacer!.chain;
            if (call.autoExtend) this.#renewals.hold(lock, duration, s, call.onLockLost);
            return lock;
          }
          expired = until <= now;
        }
        this.masters.reportRefusals(attempt);
        if (pacer === undefined) {
          pacer = new Pacer(this.#waiters, waitKeys, s, deadline, kind?.waiting, false);
          pacer.terms = handoverTerms(kind, counters, duration, ttlArg, s);
          pacer.attempted(attempt.token);
        }
        // Split: some master granted it — or may have: decided early while a stalled master's vote
        // was missing, it is not known that none did (then the gate alone is not read as the lock's state).
        // Lost to errors: the next try waits a full slot, deaf to wake-ups (src/waiting/wait.ts).
        pacer.refused(attempt);
        // Undo this attempt wherever it may have written (timed-out masters too). The undo is queued
        // on every master now, ahead of anything sent later, so a retry does not wait for the slowest
        // master to confirm it (a slow minority would otherwise cost every lost attempt its round
        // trip); an error reaches the caller only once the undo is done.
        const undone = this.masters.cleanup(attempt, held, kind?.ops.release);
        if (this.masters.isClosed()) {
          await undone;
          throw new RedlockClosedError();
        }
        const misconfiguration = misconfigured(attempt, this.masters.nodes, stats);
        if (misconfiguration !== undefined) {
          await undone;
          throw misconfiguration;
        }
        if (!attempt.won) {
          const n = keys.length;
          void undone.then(() => { this.#window.decided(attempt, n, latency); });
        }
        // A semaphore refused for its slot while a quorum offered another tries that one at once.
        if (kind?.refused(attempt) === true && !isAborted(signal) && performance.now() < deadline) continue;
        // A retry goes through the window like any attempt, so retries add no load faster than the
        // masters drain it; none starts past the deadline. The pause ends early on a release.
        const retry = await pacer.pause(signal, stats).catch(async (error: unknown) => {
          await undone;
          throw error;
        });
        if (retry) continue;
        // Built after the undo, by when the late masters' votes of this attempt are in too.
        await undone;
        if (isAborted(signal)) throw new LockAbortedError(signal?.reason, stats);
        if (expired) throw new LockExpiredError(`the quorum answered after the lock's validity ran out (${duration} ms, driftFactor ${s.driftFactor})`, stats, this.masters.outcomes(attempt));
        const error = this.#quorumError(`could not acquire ${describeResources(resources)} after ${attempts.length} attempt(s)`, attempt, stats);
        if (error instanceof ResourceLockedError && kind === undefined) {
          const foreign = await foreignHolder(this.masters.nodes, attempt, attempt.keys.slice(0, resources.length), s.nodeTimeout);
          if (foreign !== undefined) throw new ResourceLockedError(error.message.replace('(held by another lock)', `(not a lock: ${foreign}; pipelock's locks are strings that expire, so this is the application's data or another library's key, and waiting cannot help)`), stats, error.nodes);
        }
        throw error;
      }
    } finally {
      pacer?.leave();
    }
  }

  release(lock: Lock, settings?: CallSettings): Promise<ReleaseResult> {
    return traceRelease(this, this.#release, lock, settings);
  }

  /** Not async, so a release makes one promise (src/lifecycle/release.ts's); what it checks here rejects, as an async method's would. */
  #release(lock: Lock, settings?: CallSettings): Promise<ReleaseResult> {
    try {
      this.masters.assertOpen();
      this.#checkLock(lock);
      return this.#releases.release(lock, resolveCall(this.settings, this.#plain, settings).settings);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  extend(lock: Lock, duration: number, settings?: CallSettings): Promise<Lock> {
    return traceExtend(this, this.#extend, lock, duration, settings);
  }

  async #extend(lock: Lock, duration: number, settings?: CallSettings): Promise<Lock> {
    this.masters.assertOpen();
    this.#checkLock(lock);
    validateDuration(duration);
    const call = resolveCall(this.settings, this.#plain, settings);
    const s = call.settings;
    const signal = call.signal;
    if (lock.validity <= 0) throw new LockExpiredError();
    if (lock.extensions >= s.maxExtensions) throw new ExtensionLimitError(s.maxExtensions);
    // As acquire: a caller that already gave up gets nothing sent (the lock is left as it is).
    if (isAborted(signal)) throw new LockAbortedError(signal?.reason, []);
    lock.extending++;
    try {
      return await this.#extendTries(lock, duration, s, signal);
    } finally {
      lock.extending--;
    }
  }

  async #extendTries(lock: Lock, duration: number, s: ResolvedSettings, signal: AbortSignal | undefined): Promise<Lock> {
    const attempts: Attempt[] = [];
    const ttlArg = String(duration);
    for (;;) {
      const attempt = this.masters.execute(lock.ops.extend, lock.resources, lock.value, ttlArg, s.nodeTimeout);
      attempts.push(attempt);
      await attempt.done;
      const now = performance.now();
      if (attempt.won && now < lock.validUntil) {
        // An auto-extended lock is extended in place: its scheduler entry and signal stay valid.
        if (lock.held !== undefined) {
          lock.renewed(validUntil(attempt.start, duration, s.driftFactor), now);
          return lock;
        }
        lock.expiration = 0;
        const extended = new Lock(this, this.masters, lock.resources, lock.value, attempts, validUntil(attempt.start, duration, s.driftFactor), lock.extensions + 1, now);
        extended.ops = lock.ops;
        return extended;
      }
      this.masters.reportRefusals(attempt);
      const nodes = this.masters.outcomes(attempt);
      const stats: () => ReadonlyArray<Promise<ExecutionStats>> = this.masters.stats.bind(this.masters, attempts);
      if (lostOnQuorum(attempt)) {
        throw new LockLostError(`${describeResources(lock.resources)} is no longer held under this lock's token on a quorum: ${describeOutcomes(nodes)}`, stats, nodes);
      }
      if (now >= lock.validUntil) throw new LockExpiredError('the lock expired before a quorum confirmed the extension', stats, nodes);
      const misconfiguration = misconfigured(attempt, this.masters.nodes, stats);
      if (misconfiguration !== undefined) throw misconfiguration;
      if (!mayRetry(attempts.length, s.retryCount)) throw this.#quorumError(`could not extend ${describeResources(lock.resources)} after ${attempts.length} attempt(s)`, attempt, stats);
      await sleep(Math.min(retryWait(s.retryDelay, s.retryJitter), Math.max(0, lock.validUntil - now)), signal, stats);
    }
  }

  /**
   * Runs `routine` under the lock, extending it while it runs (when less than
   * `automaticExtensionThreshold` remains); aborts the routine's signal with a typed reason when the
   * lock is lost; always releases.
   */
  using<T>(resources: readonly string[], duration: number, settings: CallSettings, routine: (signal: RedlockAbortSignal) => Promise<T>): Promise<T>;
  using<T>(resources: readonly string[], duration: number, routine: (signal: RedlockAbortSignal) => Promise<T>): Promise<T>;
  async using<T>(
    resources: readonly string[],
    duration: number,
    settingsOrRoutine: CallSettings | ((signal: RedlockAbortSignal) => Promise<T>),
    routine?: (signal: RedlockAbortSignal) => Promise<T>,
  ): Promise<T> {
    this.masters.assertOpen();
    const fn = typeof settingsOrRoutine === 'function' ? settingsOrRoutine : routine;
    const settings = typeof settingsOrRoutine === 'function' ? undefined : settingsOrRoutine;
    if (typeof fn !== 'function') throw new InvalidArgumentError('routine', 'must be a function', fn);
    validateDuration(duration);
    const call = resolveCall(this.settings, this.#plain, settings);
    const threshold = call.settings.automaticExtensionThreshold;
    if (threshold > duration - kUsingMarginMs) {
      throw new InvalidArgumentError('duration', `must be at least ${kUsingMarginMs} ms greater than automaticExtensionThreshold (${threshold} ms)`, duration);
    }
    validateResources(resources);
    const lock = await traceAcquire(this, this.#acquire, resources, duration, { ...call, autoExtend: true });
    let result: T;
    try {
      result = await fn(lock.signal!);
    } catch (error) {
      // The routine's own error is the one to throw; a failed release is reported beside it.
      await this.release(lock).catch((releaseError: unknown) => {
        this.masters.report(releaseError);
      });
      throw error;
    }
    await this.release(lock);
    return result;
  }

  /**
   * Closes every connection: those pipelock opened and, as node-redlock v5 does, the clients it was
   * given — unless `keepClients`, which leaves the caller's clients open.
   */
  async quit(options?: { keepClients?: boolean }): Promise<void> {
    if (options !== undefined && (!isObject(options) || (options.keepClients !== undefined && typeof options.keepClients !== 'boolean'))) {
      throw new InvalidArgumentError('options.keepClients', 'must be a boolean', options);
    }
    if (!this.masters.shut()) return;
    this.#renewals.stop(new RedlockClosedError());
    this.#window.close(new RedlockClosedError());
    this.#waiters?.close();
    for (const watch of this.#watches) watch?.close();
    // What was already sent is answered before the connections close: an attempt in flight is
    // decided by its masters' replies (expired by its budget if one is silent) and then undone
    // where it wrote, won or not (#attempts), so no key outlives a quit but those of locks the
    // caller already holds. Closed at once, its replies were dropped and its keys stayed.
    await this.masters.drain();
    await this.masters.close(options?.keepClients === true);
  }

  /** A woken mutex attempt, sent to its gate first, in its turn in the queue there (src/waiting/gate.ts, turns.ts). */
  #executeGated(gate: number, keys: readonly string[], ttlArg: string, budget: number, pacer: Pacer): Attempt {
    const queue = pacer.queue ??= this.masters.queueOf(keys[0]!);
    return this.masters.executeGated(gate, keys, createToken(), ttlArg, budget, queue, pacer.turn());
  }

  #quorumError(message: string, attempt: Attempt, stats: () => ReadonlyArray<Promise<ExecutionStats>>): ExecutionError {
    const nodes = this.masters.outcomes(attempt);
    const text = `${message}: ${describeOutcomes(nodes)}`;
    return quorumUnreachable(attempt)
      ? new QuorumUnreachableError(`${text} (quorum ${attempt.quorum} of ${attempt.size} unreachable)`, stats, nodes)
      : new ResourceLockedError(`${text} (held by another lock)`, stats, nodes);
  }

  /** A lock a holder of this process passed to a waiting call as it stands (src/lifecycle/handover.ts). */
  #passed(passed: Passed, resources: readonly string[], attempts: readonly Attempt[], chain: number): Lock {
    const lock = new Lock(this, this.masters, resources, passed.token, attempts, passed.validUntil, 0, performance.now());
    lock.chain = chain;
    return lock;
  }

  #checkLock(lock: unknown): asserts lock is Lock {
    if (!(lock instanceof Lock) || lock.redlock !== this) throw new InvalidArgumentError('lock', 'must be a Lock returned by this Redlock', lock);
  }
}

/** What a lock handed over to a waiting call must be (src/lifecycle/handover.ts): plain mutexes only. */
function handoverTerms(kind: Kind | undefined, counters: readonly string[] | undefined, duration: number, ttlArg: string, s: ResolvedSettings): HandoverTerms | undefined {
  if (kind !== undefined || counters !== undefined) return undefined;
  return { ttlArg, budget: s.nodeTimeout, least: duration - 2 * drift(duration, s.driftFactor) };
}

/** What one acquisition attempt sends: the kind's keys, or the resources and their fencing counters. */
function keysOf(resources: readonly string[], counters: readonly string[] | undefined, kind: Kind | undefined): readonly string[] {
  return kind !== undefined ? kind.keys : counters === undefined ? resources : [...resources, ...counters];
}

/** A first turn's wait has no attempts behind it. */
const noAttempts = (): ReadonlyArray<Promise<ExecutionStats>> => [];
