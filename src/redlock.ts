import { EventEmitter } from 'node:events';
import type { RedisClientOptions } from '@redis/client';
import { kMaxTimerMs } from './alarm.js';
import { Attempt, AGAINST, FAILED, TIMEOUT } from './attempt.js';
import { checkClients, clientName, closeClient, openClient, type RedisClient } from './client.js';
import { Deadlines } from './deadlines.js';
import { publishNodeError } from './diagnostics.js';
import {
  ExecutionError, ExtensionLimitError, InvalidArgumentError, LockAbortedError, LockExpiredError, LockLostError,
  QuorumUnreachableError, RedlockClosedError, ResourceLockedError, type ExecutionStats, type NodeOutcome,
} from './errors.js';
import { Lock, type RedlockAbortSignal } from './lock.js';
import { Node } from './node.js';
import { isObject, resolveCallSettings, resolveSettings, validateDuration, validateResources, type CallSettings, type ResolvedSettings, type Settings } from './options.js';
import { answered, describeOutcomes, describeResources, mayHold, outcomesOf, statsOf } from './outcomes.js';
import { ReleaseResult } from './release-result.js';
import { quorumSize } from './quorum.js';
import { Renewals, type Held, type RenewalHost } from './renewal.js';
import { isAborted, mayRetry, retryWait, sleep } from './retry.js';
import { OP_ACQUIRE, OP_EXTEND, OP_FENCED_ACQUIRE, OP_RELEASE, type OpCode } from './scripts.js';
import { counterKeys, raiseFence } from './fencing.js';
import { createToken } from './token.js';
import { validUntil } from './validity.js';

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
  readonly clients: Set<RedisClient>;
  readonly settings: ResolvedSettings;
  readonly #nodes: Node[];
  readonly #quorum: number;
  readonly #deadlines: Deadlines;
  readonly #renewals: Renewals;
  readonly #errorListeners = new Map<RedisClient, (error: Error) => void>();
  #closed = false;

  constructor(clients: Iterable<RedisClient | string>, options?: RedlockOptions) {
    super();
    // JavaScript callers are not held to the types: a non-object would otherwise be spread away.
    if (options !== undefined && !isObject(options)) throw new InvalidArgumentError('settings', 'must be an object', options);
    const { clientOptions, ...settings } = (options ?? {});
    this.settings = resolveSettings(options === undefined ? undefined : settings);
    if (clientOptions !== undefined && !isObject(clientOptions)) throw new InvalidArgumentError('settings.clientOptions', 'must be an object of @redis/client options', clientOptions);
    const entries = checkClients(clients);
    const watch = (deadline: number): void => {
      this.#deadlines.watch(deadline);
    };
    this.#nodes = entries.map((entry, index) => {
      const owned = typeof entry === 'string';
      const client = owned ? openClient(entry, clientOptions) : entry;
      const node = new Node(index, clientName(client, index), client, owned, this.settings.chunkSize, this.settings.coalesce, this.#onNodeError, watch);
      if (owned) {
        // Owned connections have no other listener; an unheard 'error' event would crash the process.
        const listener = (error: Error): void => { this.#onNodeError(node, error); };
        this.#errorListeners.set(client, listener);
        client.on('error', listener);
        (client as unknown as { connect(): Promise<unknown> }).connect().catch((error: unknown) => { this.#onNodeError(node, error as Error); });
      }
      return node;
    });
    this.#deadlines = new Deadlines((now) => {
      let next = Infinity;
      for (const node of this.#nodes) next = Math.min(next, node.expire(now));
      return next;
    });
    this.clients = new Set(this.#nodes.map((node) => node.client));
    this.#quorum = quorumSize(this.#nodes.length);
    const host: RenewalHost = {
      nodes: this.#nodes,
      quorum: this.#quorum,
      makeAttempt: (lock, ttlArg, budget) => this.#attempt(OP_EXTEND, lock.resources, lock.value, ttlArg, budget, false),
      send: (attempt) => {
        this.#dispatch(attempt);
      },
      reportError: (error) => {
        this.reportError(error);
      },
      discard: (lock) => {
        this.#dispatch(this.#attempt(OP_RELEASE, lock.resources, lock.value, '0', this.settings.nodeTimeout, true));
      },
    };
    this.#renewals = new Renewals(host, this.settings.renewalWindow);
  }

  /** How many auto-extended locks the renewal scheduler keeps alive. */
  get autoExtended(): number {
    return this.#renewals.size;
  }

  /** floor(N/2)+1. */
  get quorum(): number {
    return this.#quorum;
  }

  /** Resolves once a quorum of masters is connected; rejects with QuorumUnreachableError after `timeoutMs` (Infinity: never), RedlockClosedError after quit(). */
  async ready(timeoutMs = 5000): Promise<void> {
    if (typeof timeoutMs !== 'number' || Number.isNaN(timeoutMs) || timeoutMs < 0) throw new InvalidArgumentError('timeoutMs', 'must be a number of ms ≥ 0', timeoutMs);
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      // Closed connections never become ready: say so rather than wait out the timeout.
      this.#assertOpen();
      const ready = this.#nodes.filter((node) => node.client.isReady).length;
      if (ready >= this.#quorum) return;
      if (performance.now() >= deadline) {
        const nodes = this.#nodes.map((n): NodeOutcome => ({ node: n.index, name: n.name, vote: n.client.isReady ? 'for' : 'error', ...(n.lastError ? { error: n.lastError } : {}) }));
        throw new QuorumUnreachableError(`only ${ready} of ${this.#nodes.length} masters connected within ${timeoutMs} ms: ${describeOutcomes(nodes)}`, [], nodes);
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  async acquire(resources: readonly string[], duration: number, settings?: CallSettings): Promise<Lock> {
    this.#assertOpen();
    validateResources(resources);
    validateDuration(duration);
    const s = settings === undefined ? this.settings : resolveCallSettings(this.settings, settings);
    const signal = settings?.signal;
    const attempts: Attempt[] = [];
    if (isAborted(signal)) throw new LockAbortedError(signal?.reason, []);
    const ttlArg = String(duration);
    const counters = settings?.fencing === true ? counterKeys(resources) : undefined;
    const keys = counters === undefined ? resources : [...resources, ...counters];
    for (;;) {
      const attempt = this.execute(counters === undefined ? OP_ACQUIRE : OP_FENCED_ACQUIRE, keys, createToken(), ttlArg, s.nodeTimeout, false);
      attempts.push(attempt);
      await attempt.done;
      let expired = false;
      const fence = attempt.won && counters !== undefined ? await raiseFence(this, counters, attempt.value, s.nodeTimeout) : undefined;
      if (attempt.won && (counters === undefined || fence !== undefined)) {
        const until = validUntil(attempt.start, duration, s.driftFactor);
        const now = performance.now();
        if (until > now && !isAborted(signal)) {
          const hold = settings?.autoExtend === true ? (lock: Lock): Held => this.#hold(lock, duration, s, settings) : undefined;
          return new Lock(this, resources, attempt.token, attempts, until, 0, now, hold, fence);
        }
        expired = until <= now;
      }
      // Undo this attempt wherever it may have written (timed-out masters too). The undo is queued
      // on every master now, ahead of anything sent later, so a retry does not wait for the slowest
      // master to confirm it (a slow minority would otherwise cost every lost attempt its round
      // trip); an error reaches the caller only once the undo is done.
      const undone = this.#cleanup(attempt, resources);
      const stats = (): ReadonlyArray<Promise<ExecutionStats>> => this.executionStats(attempts);
      if (!isAborted(signal) && mayRetry(attempts.length, s.retryCount)) {
        const aborted = await sleep(retryWait(s.retryDelay, s.retryJitter), signal, stats).then(() => undefined, (error: unknown) => error as LockAbortedError);
        if (aborted === undefined) continue;
        await undone;
        throw aborted;
      }
      // Built after the undo, by when the late masters' votes of this attempt are in too.
      await undone;
      if (isAborted(signal)) throw new LockAbortedError(signal?.reason, stats);
      if (expired) throw new LockExpiredError(`the quorum answered after the lock's validity ran out (${duration} ms, driftFactor ${s.driftFactor})`, stats, outcomesOf(attempt, this.#nodes));
      throw this.#quorumError(`could not acquire ${describeResources(resources)} after ${attempts.length} attempt(s)`, attempt, stats);
    }
  }

  async release(lock: Lock, settings?: CallSettings): Promise<ReleaseResult> {
    this.#assertOpen();
    this.#checkLock(lock);
    const s = settings === undefined ? this.settings : resolveCallSettings(this.settings, settings);
    // Out of the scheduler before any I/O: a renewal decided from now on cannot touch the lock, and
    // one already queued reaches each master before this release (same connection, in order), as an
    // owner-checked PEXPIRE that cannot bring a deleted key back.
    if (lock.held !== undefined) this.#renewals.remove(lock.held);
    lock.expiration = 0;
    const attempt = this.execute(OP_RELEASE, lock.resources, lock.value, '0', s.nodeTimeout, false);
    await attempt.done;
    // The lock's state is only known where a master answered; without a quorum of answers
    // we cannot say it is gone (its keys will still expire).
    if (answered(attempt) < this.#quorum) {
      const nodes = outcomesOf(attempt, this.#nodes);
      throw new QuorumUnreachableError(`could not confirm the release of ${describeResources(lock.resources)} on a quorum: ${describeOutcomes(nodes)}`, this.executionStats([attempt]), nodes);
    }
    return new ReleaseResult(this, this.#nodes, attempt);
  }

  async extend(lock: Lock, duration: number, settings?: CallSettings): Promise<Lock> {
    this.#assertOpen();
    this.#checkLock(lock);
    validateDuration(duration);
    const s = settings === undefined ? this.settings : resolveCallSettings(this.settings, settings);
    if (lock.validity <= 0) throw new LockExpiredError();
    if (lock.extensions >= s.maxExtensions) throw new ExtensionLimitError(s.maxExtensions);
    // As acquire: a caller that already gave up gets nothing sent (the lock is left as it is).
    if (isAborted(settings?.signal)) throw new LockAbortedError(settings?.signal?.reason, []);
    const attempts: Attempt[] = [];
    const ttlArg = String(duration);
    for (;;) {
      const attempt = this.execute(OP_EXTEND, lock.resources, lock.value, ttlArg, s.nodeTimeout, false);
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
        return new Lock(this, lock.resources, lock.value, attempts, validUntil(attempt.start, duration, s.driftFactor), lock.extensions + 1, now);
      }
      const nodes = outcomesOf(attempt, this.#nodes);
      const stats = (): ReadonlyArray<Promise<ExecutionStats>> => this.executionStats(attempts);
      let against = 0;
      for (const vote of attempt.votes) if (vote === AGAINST) against++;
      if (against >= this.#quorum) {
        throw new LockLostError(`${describeResources(lock.resources)} is no longer held under this lock's token on a quorum: ${describeOutcomes(nodes)}`, stats, nodes);
      }
      if (now >= lock.validUntil) throw new LockExpiredError('the lock expired before a quorum confirmed the extension', stats, nodes);
      if (!mayRetry(attempts.length, s.retryCount)) throw this.#quorumError(`could not extend ${describeResources(lock.resources)} after ${attempts.length} attempt(s)`, attempt, stats);
      await sleep(Math.min(retryWait(s.retryDelay, s.retryJitter), Math.max(0, lock.validUntil - now)), settings?.signal, stats);
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
    this.#assertOpen();
    const fn = typeof settingsOrRoutine === 'function' ? settingsOrRoutine : routine;
    const settings = typeof settingsOrRoutine === 'function' ? undefined : settingsOrRoutine;
    if (typeof fn !== 'function') throw new InvalidArgumentError('routine', 'must be a function', fn);
    validateDuration(duration);
    const s = settings === undefined ? this.settings : resolveCallSettings(this.settings, settings);
    if (s.automaticExtensionThreshold > duration - 100) {
      throw new InvalidArgumentError('duration', `must be at least 100 ms greater than automaticExtensionThreshold (${s.automaticExtensionThreshold} ms)`, duration);
    }
    const lock = await this.acquire(resources, duration, { ...settings, autoExtend: true });
    let result: T;
    try {
      result = await fn(lock.signal!);
    } catch (error) {
      // The routine's own error is the one to throw; a failed release is reported beside it.
      await this.release(lock).catch((releaseError: unknown) => {
        this.reportError(releaseError);
      });
      throw error;
    }
    await this.release(lock);
    return result;
  }

  /** Closes the connections pipelock opened from URLs; leaves the caller's clients open. */
  async quit(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#renewals.stop(new RedlockClosedError());
    this.#deadlines.clear();
    const closing: Promise<unknown>[] = [];
    for (const node of this.#nodes) {
      node.detach();
      if (!node.owned) continue;
      const client = node.client;
      closing.push(closeClient(client, Math.min(kMaxTimerMs, Math.max(250, 2 * this.settings.nodeTimeout))).finally(() => {
        const listener = this.#errorListeners.get(client);
        if (listener !== undefined) client.off('error', listener);
      }));
    }
    await Promise.allSettled(closing);
  }

  /** @internal node-redlock's stats promises, built only when someone reads them. */
  executionStats(attempts: readonly Attempt[]): ReadonlyArray<Promise<ExecutionStats>> {
    return attempts.map((attempt) => statsOf(attempt, this.#nodes));
  }

  /** @internal Reports an error that has no caller to throw to (node-redlock's 'error' event). */
  reportError(error: unknown): void {
    if (this.listenerCount('error') > 0) this.emit('error', error);
  }

  /** @internal One operation sent to every master, with its own quorum tally. */
  execute(opcode: OpCode, keys: readonly string[], token: string, ttlArg: string, budget: number, needAll: boolean, target = 0): Attempt {
    this.#assertOpen();
    const attempt = this.#attempt(opcode, keys, token, ttlArg, budget, needAll);
    attempt.target = target;
    this.#dispatch(attempt);
    return attempt;
  }

  /** @internal Stops renewing an auto-extended lock without releasing it (run-once keeps its key as a marker). */
  stopRenewing(lock: Lock): void {
    if (lock.held !== undefined) this.#renewals.remove(lock.held);
  }

  /** An attempt over this Redlock's masters, started now (its validity and deadline count from here). */
  #attempt(opcode: OpCode, keys: readonly string[], token: string, ttlArg: string, budget: number, needAll: boolean): Attempt {
    return new Attempt(opcode, keys, token, ttlArg, this.#quorum, performance.now(), budget, needAll, this.#nodes.length);
  }

  #dispatch(attempt: Attempt): void {
    const nodes = this.#nodes;
    for (let i = 0; i < nodes.length; i++) nodes[i]!.enqueue(attempt);
  }

  #hold(lock: Lock, duration: number, s: ResolvedSettings, settings: CallSettings): Held {
    const held: Held = {
      lock,
      duration,
      ttlArg: String(duration),
      driftFactor: s.driftFactor,
      nodeTimeout: s.nodeTimeout,
      retryDelay: s.retryDelay,
      retryJitter: s.retryJitter,
      // Renew with a third of the duration left (Redisson's watchdog period), never later than
      // automaticExtensionThreshold before expiry, and never earlier than halfway.
      threshold: Math.min(Math.max(duration / 3, s.automaticExtensionThreshold), duration / 2),
      maxRenewals: s.maxExtensions,
      holdUntil: performance.now() + s.maxHoldTime,
      controller: new AbortController(),
      onLockLost: settings.onLockLost,
      dueAt: 0,
      active: true,
      renewing: false,
      final: false,
    };
    this.#renewals.add(held);
    return held;
  }

  /** Owner-checked delete of a failed attempt's keys on every master that may have set them. */
  async #cleanup(attempt: Attempt, resources: readonly string[]): Promise<void> {
    const nodes = this.#nodes;
    const undo = this.#attempt(OP_RELEASE, resources, attempt.token, '0', attempt.budget, true);
    for (let i = 0; i < nodes.length; i++) {
      if (mayHold(attempt, i)) nodes[i]!.enqueue(undo);
      else undo.skip(i);
    }
    if (undo.pending === 0) return;
    await undo.done;
  }

  #quorumError(message: string, attempt: Attempt, stats: () => ReadonlyArray<Promise<ExecutionStats>>): ExecutionError {
    const nodes = outcomesOf(attempt, this.#nodes);
    let unreachable = 0;
    for (const vote of attempt.votes) if (vote === FAILED || vote === TIMEOUT) unreachable++;
    const text = `${message}: ${describeOutcomes(nodes)}`;
    return this.#nodes.length - unreachable < this.#quorum
      ? new QuorumUnreachableError(`${text} (quorum ${this.#quorum} of ${this.#nodes.length} unreachable)`, stats, nodes)
      : new ResourceLockedError(`${text} (held by another lock)`, stats, nodes);
  }

  #checkLock(lock: unknown): asserts lock is Lock {
    if (!(lock instanceof Lock) || lock.redlock !== this) throw new InvalidArgumentError('lock', 'must be a Lock returned by this Redlock', lock);
  }

  #assertOpen(): void {
    if (this.#closed) throw new RedlockClosedError();
  }

  readonly #onNodeError = (node: Node, error: Error): void => {
    node.lastError = error;
    publishNodeError(node.index, node.name, error);
    // node-redlock's observability: an 'error' event per master failure, only if someone listens.
    this.reportError(error);
  };
}
