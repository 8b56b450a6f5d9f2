import { EventEmitter } from 'node:events';
import type { RedisClientOptions } from '@redis/client';
import { AdmissionWindow } from './admission/window.js';
import type { MasterClient, MemberEntry } from './clients.js';
import { MasterSet, type Reports } from './engine/masters.js';
import { InvalidArgumentError, RedlockClosedError } from './errors.js';
import { Acquirer } from './lifecycle/acquire.js';
import { plainCall, resolveCall, type ResolvedCall } from './lifecycle/call.js';
import { acquireSpan, extendSpan, releaseSpan, traced } from './engine/channels.js';
import { extend } from './lifecycle/extend.js';
import { checkForceOptions, forceRelease, type ForceReleaseOptions, type ForceReleaseResult } from './lifecycle/force-release.js';
import { Lock, type CallSettings, type LockOwner } from './lifecycle/lock.js';
import { Releases } from './lifecycle/release.js';
import type { ReleaseResult } from './lifecycle/release-result.js';
import { Renewals } from './lifecycle/renewal.js';
import type { Scheduler } from './lifecycle/scheduler.js';
import { checkWorkerMembers, WorkerRenewals } from './lifecycle/worker/renewer.js';
import { checkUsingDuration, holding, routineOf, type Routine } from './lifecycle/using.js';
import { ReadWriteLock } from './kinds/rwlock.js';
import { Semaphore } from './kinds/semaphore.js';
import { Election } from './kinds/election/election.js';
import type { ElectionOptions } from './kinds/election/options.js';
import { resolveRedlockOptions, validateDuration, validateResources, type ResolvedSettings, type Settings } from './settings.js';
import { checkClients } from './transport/members.js';
import { memberCapabilities, type MemberCapabilities } from './lifecycle/capabilities.js';
import { asError, isObject } from './util/checks.js';
import { Waiters } from './waiting/waiters.js';
import { WatchHub } from './watch/hub.js';

/** The constructor's second argument: settings (docs/settings.md) and `clientOptions` for the connections opened from URLs. */
export interface RedlockOptions extends Settings {
  /** Extra @redis/client options for the connections pipelock opens from URLs (TLS, credentials, …). */
  readonly clientOptions?: RedisClientOptions;
}

/** What the recipes built on a Redlock (src/recipes/) reach below its public API. */
export interface RedlockInternals {
  readonly masters: MasterSet;
  readonly report: (error: unknown) => void;
}

let internalsOf: (redlock: Redlock) => RedlockInternals;

/**
 * Redlock over N independent masters: each member a client, a redis:// URL or a Redis Cluster (see
 * `MemberEntry`). Drop-in for node-redlock v5: the same constructor shape, settings, methods and
 * error classes. This class checks each call's arguments and hands it to the room below: the
 * acquire loop (src/lifecycle/acquire.ts), extend, release, using; it wires them at construction.
 */
export class Redlock extends EventEmitter implements LockOwner {
  /** The instance's settings: the defaults with the constructor's over them, checked once. */
  readonly settings: ResolvedSettings;
  readonly #masters: MasterSet;
  /** What a call without settings resolves to. */
  readonly #plain: ResolvedCall;
  readonly #window = new AdmissionWindow();
  readonly #hub: WatchHub;
  /** Undefined with `wakeups: false` or no member to watch. */
  readonly #waiters: Waiters | undefined;
  readonly #renewals: Scheduler;
  readonly #releases: Releases;
  readonly #acquirer: Acquirer;
  /** node-redlock's 'error' event: built and emitted only when someone listens. */
  readonly #reports: Reports = {
    wanted: () => this.listenerCount('error') > 0,
    report: (error) => { if (this.listenerCount('error') > 0) this.emit('error', error); },
    capability: (change) => { if (this.listenerCount('capability') > 0) this.emit('capability',
      memberCapabilities(change.node, change.name, change.capabilities, true, change)); },
  };

  static {
    internalsOf = (redlock) => ({ masters: redlock.#masters, report: redlock.#reports.report });
  }

  /** @param scripts node-redlock v5's third argument, replacement Lua scripts: refused (src/settings.ts resolveRedlockOptions). */
  constructor(clients: Iterable<MemberEntry>, options?: RedlockOptions, ...scripts: readonly never[]) {
    super();
    const { settings, clientOptions } = resolveRedlockOptions(options, scripts);
    this.settings = settings;
    const entries = checkClients(clients);
    const urls = this.settings.renewal === 'worker' ? checkWorkerMembers(entries, clientOptions) : undefined;
    const masters = this.#masters = new MasterSet(entries, this.settings, clientOptions, this.#reports);
    this.#plain = plainCall(this.settings);
    this.#hub = new WatchHub(masters.nodes.map((node) => node.transport));
    this.#waiters = this.settings.wakeups && this.#hub.watchable
      ? new Waiters(this.#hub, masters.quorum, masters.names, masters.nodes.map((node) => node.name), () => masters.scripting)
      : undefined;
    this.#releases = new Releases(masters, this.#window, this.#waiters);
    this.#renewals = urls === undefined
      ? new Renewals(masters, this.settings.renewalWindow, this.#hub)
      : new WorkerRenewals(urls, this.settings, clientOptions, this.#reports.report);
    this.#acquirer =
      new Acquirer(this, masters, this.#window, this.#waiters, this.#renewals, this.#releases, this.#plain, this.#reports.report);
  }

  /** The clients as given; for URLs, the clients pipelock opened from them. */
  get clients(): Set<MasterClient> {
    return this.#masters.clients;
  }

  /** How many auto-extended locks the renewal scheduler keeps alive. */
  get autoExtended(): number {
    return this.#renewals.size;
  }

  /**
   * What each member accepts and so which commands its single-key operations use (native
   * compare-and-set/delete or Lua scripts), as its last probe said; the 'capability' event tells
   * each change.
   */
  capabilities(): MemberCapabilities[] {
    return this.#masters.nodes.map((node) => memberCapabilities(node.index, node.name, node.capabilities, node.probed));
  }

  /** floor(N/2)+1. */
  get quorum(): number {
    return this.#masters.quorum;
  }

  /** Resolves once a quorum of masters is connected; rejects with QuorumUnreachableError after `timeoutMs`, or after quit(). */
  async ready(timeoutMs = 5000): Promise<void> {
    await this.#masters.ready(timeoutMs);
    await this.#renewals.opened();
  }

  /**
   * Takes a lock on `resources` for `duration` ms once a quorum granted it within its validity, retrying a refused attempt per the
   * retry settings (woken early by a release). Rejects with a typed error: ResourceLockedError (held elsewhere),
   * QuorumUnreachableError, LockExpiredError, LockAbortedError, OverloadedError, InvalidArgumentError. `settings` overrides the
   * instance's for this call and adds `signal`, `autoExtend`, `onLockLost`, `fencing`.
   */
  acquire(resources: readonly string[], duration: number, settings?: CallSettings): Promise<Lock> {
    const span = acquireSpan(resources, duration);
    if (span === undefined) return this.#checkedAcquire(resources, duration, settings);
    return traced(span, () => this.#checkedAcquire(resources, duration, settings));
  }

  // Not async (docs/decisions/0002-acquire-memory.md): bad input still rejects, never throws.
  #checkedAcquire(resources: readonly string[], duration: number, settings?: CallSettings): Promise<Lock> {
    let call: ResolvedCall;
    try {
      this.#masters.assertOpen();
      validateResources(resources);
      validateDuration(duration);
      call = resolveCall(this.settings, this.#plain, settings);
    } catch (error) {
      return Promise.reject(asError(error));
    }
    return this.#acquirer.acquire(resources, duration, call);
  }

  /** A counting semaphore: at most `permits` holders of `resource` at once (src/kinds/semaphore.ts). */
  semaphore(resource: string, permits: number): Semaphore {
    return new Semaphore(this.#acquirer, resource, permits);
  }

  /** A read/write lock on `resource`: many readers or one writer, writers preferred (src/kinds/rwlock.ts). */
  readWriteLock(resource: string): ReadWriteLock {
    return new ReadWriteLock(this.#acquirer, resource);
  }

  /** Leader election on `name` with a renewed lease and fencing-token terms (docs/lock-kinds.md#leader-election). */
  election(name: string, options?: ElectionOptions): Election {
    this.#masters.assertOpen();
    return new Election(this.#acquirer, name, options);
  }

  /** Releases a lock: owner-checked deletes on every master, resolved at the quorum; an expired lock has `expired: true`. */
  release(lock: Lock, settings?: CallSettings): Promise<ReleaseResult> {
    const span = releaseSpan(lock);
    if (span === undefined) return this.#release(lock, settings);
    return traced(span, () => this.#release(lock, settings));
  }

  /** Not async, so a release makes one promise (src/lifecycle/release.ts's). */
  #release(lock: Lock, settings?: CallSettings): Promise<ReleaseResult> {
    try {
      this.#masters.assertOpen();
      this.#checkLock(lock);
      return this.#releases.release(lock, resolveCall(this.settings, this.#plain, settings).settings);
    } catch (error) {
      return Promise.reject(asError(error));
    }
  }

  /** Extends a lock to `duration` ms from now on a quorum, owner-checked: a new Lock, the old one invalid. */
  extend(lock: Lock, duration: number, settings?: CallSettings): Promise<Lock> {
    const span = extendSpan(lock, duration);
    if (span === undefined) return this.#extend(lock, duration, settings);
    return traced(span, () => this.#extend(lock, duration, settings));
  }

  async #extend(lock: Lock, duration: number, settings?: CallSettings): Promise<Lock> {
    this.#masters.assertOpen();
    this.#checkLock(lock);
    validateDuration(duration);
    return extend(this.#masters, this, lock, duration, resolveCall(this.settings, this.#plain, settings));
  }

  /**
   * Runs `routine` under the lock, extending it while it runs (when less than
   * `automaticExtensionThreshold` remains); aborts the routine's signal with a typed reason when the
   * lock is lost; always releases.
   */
  using<T>(resources: readonly string[], duration: number, settings: CallSettings, routine: Routine<T>): Promise<T>;
  using<T>(resources: readonly string[], duration: number, routine: Routine<T>): Promise<T>;
  async using<T>(resources: readonly string[], duration: number, settingsOrRoutine: CallSettings | Routine<T>,
    routine?: Routine<T>): Promise<T> {
    this.#masters.assertOpen();
    const { settings, fn } = routineOf(settingsOrRoutine, routine);
    validateDuration(duration);
    const call = resolveCall(this.settings, this.#plain, settings);
    checkUsingDuration(duration, call.settings.automaticExtensionThreshold);
    validateResources(resources);
    const lock = await this.#acquirer.traced(resources, duration, { ...call, autoExtend: true });
    return holding(lock, fn, this.#reports.report);
  }

  /**
   * Takes `resources` away from whoever holds them: deletes their keys on every master without the
   * owner check, and leaves a revoked-marker with `options.reason`, so the holder's signal aborts
   * with LockRevokedError (with watchHeld within about a round trip). For operators: a stuck job.
   */
  async forceRelease(resources: readonly string[], options: ForceReleaseOptions): Promise<ForceReleaseResult> {
    this.#masters.assertOpen();
    validateResources(resources);
    return forceRelease(this.#masters, resources, checkForceOptions(options), this.settings.nodeTimeout);
  }

  /**
   * Closes every connection: those pipelock opened and, as node-redlock v5 does, the clients it was
   * given — unless `keepClients`, which leaves the caller's clients open.
   */
  async quit(options?: { keepClients?: boolean }): Promise<void> {
    if (options !== undefined && (!isObject(options) || (options.keepClients !== undefined && typeof options.keepClients !== 'boolean'))) {
      throw new InvalidArgumentError('options.keepClients', 'must be a boolean', options);
    }
    if (!this.#masters.shut()) return;
    this.#renewals.stop(new RedlockClosedError());
    this.#window.close(new RedlockClosedError());
    this.#waiters?.close();
    this.#hub.close();
    // What was already sent is answered (or timed out) and undone before the connections close,
    // so no key outlives a quit but those of locks the caller holds.
    await this.#masters.drain();
    await this.#masters.close(options?.keepClients === true);
    await this.#renewals.close();
  }

  #checkLock(lock: unknown): asserts lock is Lock {
    if (!(lock instanceof Lock) || lock.redlock !== this)
      throw new InvalidArgumentError('lock', 'must be a Lock returned by this Redlock', lock);
  }
}

/** The engine and the 'error' event of a Redlock, for the recipes built on it (not exported by the package). */
export function internals(redlock: Redlock): RedlockInternals {
  return internalsOf(redlock);
}
