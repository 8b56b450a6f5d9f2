import { InvalidArgumentError } from '../errors.js';
import { MUTEX_OPS, type Lock, type LockOps, type RedlockAbortSignal } from '../lifecycle/lock.js';
import type { CallSettings } from '../lifecycle/lock.js';
import { OP_READ, OP_READ_EXTEND, OP_READ_RELEASE, OP_WRITE } from '../protocol/opcodes.js';
import { usingLock } from '../lifecycle/using.js';
import { none, type Kind, type KindHost } from '../lifecycle/kind.js';

/** A read lock is an entry in the readers' sorted set: extended and released there, owner-checked. */
const READ_OPS: LockOps = Object.freeze({ extend: OP_READ_EXTEND, release: OP_READ_RELEASE, watchable: false });

/**
 * A read/write lock over the Redlock's masters: many readers or one writer, and a waiting writer is not starved by a
 * stream of readers. Per master a readers sorted set (expiries on the master's clock), a writer key and a
 * writer-waiting marker; a reader's and a writer's majorities share a master, which refused the second. Readers are
 * unbounded and may starve under a stream of writers. The keys, the safety argument and writer preference:
 * docs/decisions/0012, "rwlock.ts".
 */
export class ReadWriteLock {
  /** The lock's name: its keys are `<name>:readers`, `<name>:writer` and `<name>:writer-waiting`. */
  readonly resource: string;
  readonly #redlock: KindHost;
  readonly #keys: readonly string[];

  /** @internal From Redlock.readWriteLock(). */
  constructor(redlock: KindHost, resource: unknown) {
    if (typeof resource !== 'string' || resource.length === 0)
      throw new InvalidArgumentError('resource', 'must be a non-empty string', resource);
    this.#redlock = redlock;
    this.resource = resource;
    this.#keys = [`${resource}:readers`, `${resource}:writer`, `${resource}:writer-waiting`];
  }

  /** A shared lock for `duration` ms, alongside other readers; refused while a writer holds or waits. */
  readLock(duration: number, settings?: CallSettings): Promise<Lock> {
    const [readers, writer, waiting] = this.#keys as [string, string, string];
    const kind: Kind = {
      name: 'read lock', resource: this.resource, opcode: OP_READ, keys: this.#keys, extra: '', target: 0,
      lockKeys: [readers], ops: READ_OPS, waitKeys: [writer, waiting], waiting: 'alone', foreign: false, refused: () => false,
        terms: none, fence: none,
    };
    return this.#redlock.acquireKind(kind, duration, settings);
  }

  /** The exclusive lock for `duration` ms; while refused by readers it holds new readers off. */
  writeLock(duration: number, settings?: CallSettings): Promise<Lock> {
    const [readers, writer] = this.#keys as [string, string, string];
    const s = this.#redlock.settings;
    const delay = settings?.retryDelay ?? s.retryDelay;
    const jitter = settings?.retryJitter ?? s.retryJitter;
    const budget = settings?.nodeTimeout ?? s.nodeTimeout;
    // Outlives the gap to the writer's next attempt (a retry slot is at most delay + jitter).
    const marker = typeof delay === 'number' && typeof jitter === 'number' && typeof budget === 'number'
      ? Math.max(1, Math.ceil(2 * (delay + jitter) + budget)) : 1000;
    const kind: Kind = {
      name: 'write lock', resource: this.resource, opcode: OP_WRITE, keys: this.#keys, extra: String(marker), target: 0,
      lockKeys: [writer], ops: MUTEX_OPS, waitKeys: [readers, writer], waiting: 'line', foreign: false, refused: () => false,
        terms: none, fence: none,
    };
    return this.#redlock.acquireKind(kind, duration, settings);
  }

  /** Runs `routine` under a read lock, renewed while it runs; always releases. */
  usingRead<T>(duration: number, settings: CallSettings, routine: (signal: RedlockAbortSignal) => Promise<T>): Promise<T>;
  usingRead<T>(duration: number, routine: (signal: RedlockAbortSignal) => Promise<T>): Promise<T>;
  usingRead<T>(duration: number, a: CallSettings | ((signal: RedlockAbortSignal) => Promise<T>),
    b?: (signal: RedlockAbortSignal) => Promise<T>): Promise<T> {
    return usingLock(this.#redlock, duration, a, b, (settings) => this.readLock(duration, settings));
  }

  /** Runs `routine` under the write lock, renewed while it runs; always releases. */
  usingWrite<T>(duration: number, settings: CallSettings, routine: (signal: RedlockAbortSignal) => Promise<T>): Promise<T>;
  usingWrite<T>(duration: number, routine: (signal: RedlockAbortSignal) => Promise<T>): Promise<T>;
  usingWrite<T>(duration: number, a: CallSettings | ((signal: RedlockAbortSignal) => Promise<T>),
    b?: (signal: RedlockAbortSignal) => Promise<T>): Promise<T> {
    return usingLock(this.#redlock, duration, a, b, (settings) => this.writeLock(duration, settings));
  }
}
