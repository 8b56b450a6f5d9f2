import { EventEmitter } from 'node:events';
import type { RedisClientOptions } from '@redis/client';
import type { MasterClient, MemberEntry } from './clients.js';
import { InvalidArgumentError } from './errors.js';
import { resolveCall, type ResolvedCall } from './lifecycle/call.js';
import { acquireSpan, extendSpan, releaseSpan, traced } from './engine/channels.js';
import { extend } from './lifecycle/extend.js';
import { checkForceOptions, forceRelease, type ForceReleaseOptions, type ForceReleaseResult } from './engine/force-release.js';
import { Lock, type CallSettings, type LockOwner } from './lifecycle/lock.js';
import type { ReleaseResult } from './lifecycle/release-result.js';
import { checkUsingDuration, holding, routineOf, type Routine } from './lifecycle/using.js';
import { ReadWriteLock } from './kinds/rwlock.js';
import { Semaphore } from './kinds/semaphore.js';
import { Election } from './kinds/election/election.js';
import type { ElectionOptions } from './kinds/election/options.js';
import { resolveRedlockOptions, validateDuration, validateResources, type ResolvedSettings, type Settings } from './settings.js';
import { memberCapabilities, type MemberCapabilities } from './engine/member-capabilities.js';
import { emitterReports, Rooms } from './rooms.js';
import { asError } from './util/checks.js';

/** The constructor's second argument: settings (docs/settings.md) and `clientOptions` for the connections opened from URLs. */
export interface RedlockOptions extends Settings {
  /** Extra @redis/client options for the connections pipelock opens from URLs (TLS, credentials, …). */
  readonly clientOptions?: RedisClientOptions;
}

/**
 * Redlock over N independent masters: each member a client, a redis:// URL or a Redis Cluster (see `MemberEntry`). Drop-in for
 * node-redlock v5: the same constructor shape, settings, methods and error classes. This class checks each call's arguments and
 * hands it to the room below: the acquire loop (src/lifecycle/acquire.ts), extend, release, using; src/rooms.ts wires them.
 */
export class Redlock extends EventEmitter implements LockOwner {
  /** The instance's settings: the defaults with the constructor's over them, checked once. */
  readonly settings: ResolvedSettings;
  readonly #reports = emitterReports(this);
  readonly #rooms: Rooms;

  /** @param scripts node-redlock v5's third argument, replacement Lua scripts: refused (src/settings.ts resolveRedlockOptions). */
  constructor(clients: Iterable<MemberEntry>, options?: RedlockOptions, ...scripts: readonly never[]) {
    super();
    const { settings, clientOptions } = resolveRedlockOptions(options, scripts);
    this.settings = settings;
    this.#rooms = new Rooms(this, clients, settings, clientOptions, this.#reports);
  }

  /** The clients as given; for URLs, the clients pipelock opened from them. */
  get clients(): Set<MasterClient> {
    return this.#rooms.masters.clients;
  }

  /** How many auto-extended locks the renewal scheduler keeps alive. */
  get autoExtended(): number {
    return this.#rooms.renewals.size;
  }

  /** What each member accepts, so its single-key commands (native or Lua scripts), as last probed; 'capability' tells each change. */
  capabilities(): MemberCapabilities[] {
    return this.#rooms.masters.nodes.map((node) => memberCapabilities(node.index, node.name, node.capabilities, node.probed));
  }

  /** floor(N/2)+1. */
  get quorum(): number {
    return this.#rooms.masters.quorum;
  }

  /**
   * Resolves once a quorum of masters is connected; rejects with QuorumUnreachableError after `timeoutMs` (Infinity: never),
   * RedlockClosedError after quit().
   */
  async ready(timeoutMs = 5000): Promise<void> {
    await this.#rooms.masters.ready(timeoutMs);
    await this.#rooms.renewals.opened();
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
      this.#rooms.masters.assertOpen();
      validateResources(resources);
      validateDuration(duration);
      call = resolveCall(this.settings, this.#rooms.plain, settings);
    } catch (error) {
      return Promise.reject(asError(error));
    }
    return this.#rooms.acquirer.acquire(resources, duration, call);
  }

  /** A counting semaphore: at most `permits` holders of `resource` at once (src/kinds/semaphore.ts). */
  semaphore(resource: string, permits: number): Semaphore {
    return new Semaphore(this.#rooms.acquirer, resource, permits);
  }

  /** A read/write lock on `resource`: many readers or one writer, writers preferred (src/kinds/rwlock.ts). */
  readWriteLock(resource: string): ReadWriteLock {
    return new ReadWriteLock(this.#rooms.acquirer, resource);
  }

  /** Leader election on `name` with a renewed lease and fencing-token terms (docs/lock-kinds.md#leader-election). */
  election(name: string, options?: ElectionOptions): Election {
    this.#rooms.masters.assertOpen();
    return new Election(this.#rooms.acquirer, name, options);
  }

  /**
   * Releases a lock: deletes its keys, owner-checked, on every master. Resolves at the quorum (`result.complete()` waits for all);
   * an expired lock resolves with `expired: true`.
   */
  release(lock: Lock, settings?: CallSettings): Promise<ReleaseResult> {
    const span = releaseSpan(lock);
    if (span === undefined) return this.#release(lock, settings);
    return traced(span, () => this.#release(lock, settings));
  }

  /** Not async, so a release makes one promise (src/lifecycle/release.ts's). */
  #release(lock: Lock, settings?: CallSettings): Promise<ReleaseResult> {
    try {
      this.#rooms.masters.assertOpen();
      this.#checkLock(lock);
      return this.#rooms.releases.release(lock, resolveCall(this.settings, this.#rooms.plain, settings).settings);
    } catch (error) {
      return Promise.reject(asError(error));
    }
  }

  /**
   * Extends a lock to `duration` ms from now on a quorum, owner-checked, and resolves with a new Lock (the old one stops being
   * valid). Fails at once if another token holds it.
   */
  extend(lock: Lock, duration: number, settings?: CallSettings): Promise<Lock> {
    const span = extendSpan(lock, duration);
    if (span === undefined) return this.#extend(lock, duration, settings);
    return traced(span, () => this.#extend(lock, duration, settings));
  }

  async #extend(lock: Lock, duration: number, settings?: CallSettings): Promise<Lock> {
    this.#rooms.masters.assertOpen();
    this.#checkLock(lock);
    validateDuration(duration);
    return extend(this.#rooms.masters, this, lock, duration, resolveCall(this.settings, this.#rooms.plain, settings));
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
    this.#rooms.masters.assertOpen();
    const { settings, fn } = routineOf(settingsOrRoutine, routine);
    validateDuration(duration);
    const call = resolveCall(this.settings, this.#rooms.plain, settings);
    checkUsingDuration(duration, call.settings.automaticExtensionThreshold);
    validateResources(resources);
    const lock = await this.#rooms.acquirer.traced(resources, duration, { ...call, autoExtend: true });
    return holding(lock, fn, this.#reports.report);
  }

  /**
   * Takes `resources` away from whoever holds them: deletes their keys on every master without the
   * owner check, and leaves a revoked-marker with `options.reason`, so the holder's signal aborts
   * with LockRevokedError (with watchHeld within about a round trip). For operators: a stuck job.
   */
  async forceRelease(resources: readonly string[], options: ForceReleaseOptions): Promise<ForceReleaseResult> {
    this.#rooms.masters.assertOpen();
    validateResources(resources);
    return forceRelease(this.#rooms.masters, resources, checkForceOptions(options), this.settings.nodeTimeout);
  }

  /** Closes every connection: pipelock's own and, as node-redlock v5 does, the clients given, unless `keepClients`. */
  async quit(options?: { keepClients?: boolean }): Promise<void> {
    await this.#rooms.close(options);
  }

  #checkLock(lock: unknown): asserts lock is Lock {
    if (!(lock instanceof Lock) || lock.redlock !== this)
      throw new InvalidArgumentError('lock', 'must be a Lock returned by this Redlock', lock);
  }
}

export { internals, type RedlockInternals } from './rooms.js';
