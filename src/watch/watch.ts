import type { RedisClient } from '../clients.js';

/** What the watch needs of an @redis/client client beyond the transport's part. */
interface Duplicable extends RedisClient {
  duplicate(overrides: Record<string, unknown>): WatchClient;
}

/** A watch connection: 'invalidate' (a key's Buffer, null for all) per change, 'ready' when tracked again, 'error' on a drop. */
export interface WatchClient {
  readonly isReady: boolean;
  connect(): Promise<unknown>;
  sendCommand(args: readonly string[], options?: { timeout?: number }): Promise<unknown>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  on(event: string, listener: (...args: any[]) => void): unknown;
  destroy(): void;
}

/** A change to `key` on master `index` (null: every key); `present`: read present by a waiter since (a release). */
export type ChangeListener = (index: number, key: string | null, present: boolean) => void;

/** GET on a key that holds another type: present, held by someone else. */
function wrongType(error: unknown): unknown {
  if (error instanceof Error && error.message.startsWith('WRONGTYPE')) return WRONG_TYPE;
  throw error;
}
const WRONG_TYPE = Symbol('wrong type');

/** PTTL's answer when the watch could not read (not connected): nothing is known. */
export const UNKNOWN = -3;

/** One member's watch: a master's Watch, or a ClusterWatch routing each key to its shard's. */
export interface MemberWatch {
  readonly index: number;
  /** Whether a read of `key` can be answered now (its connection is open and ready). */
  readyFor(key: string): boolean;
  read(key: string, own: string | undefined): Promise<number>;
  /** Per key its value, null where absent, undefined where unknown; undefined: nothing could be read. */
  owners(keys: readonly string[]): Promise<readonly (string | null | undefined)[] | undefined>;
  /** Best effort: `member` leaves the sorted set `key` (a waiter leaving the gate's line, src/waiting/gate.ts). */
  forget(key: string, member: string): void;
  close(): void;
}

/**
 * One master's watch connection: CLIENT TRACKING on a connection of its own, opened the first time someone waits,
 * so the lock path is untouched and a release is pushed within a millisecond. Why tracking over PUBLISH, and the
 * read that closes the refusal race: docs/waiting-and-fairness.md and docs/decisions/0012, "watch.ts".
 */
export class Watch implements MemberWatch {
  /**
   * Keys read present since their last change, with value and TTL end: their tracking is armed, so a read is
   * answered from here without a command (each new head of a passed lock read it again otherwise).
   */
  readonly present = new Map<string, { readonly value: string; readonly expires: number }>();
  /**
   * Per key with reads in flight: how many, and how many changes meanwhile, so each read of a burst sees a change
   * (one flag per key, taken by the first read, left the others asleep).
   */
  readonly #reading = new Map<string, { reads: number; changes: number }>();
  #client: WatchClient | undefined;
  #failed = false;
  /** Closed with its Redlock: a read after that (a guard's, a waiter's, in flight at quit) opens nothing. */
  #closed = false;

  constructor(
    readonly index: number,
    /** Opens the watch connection (unconnected); throws when this master cannot be watched. */
    readonly connection: () => WatchClient,
    readonly onChange: ChangeListener,
    /** The watch is (again) connected: nothing is tracked on it yet. */
    readonly onReady: (index: number) => void,
    /** The watch's connection dropped: what it tracked will not be told. */
    readonly onLost: (index: number) => void = () => undefined,
  ) {}

  get ready(): boolean {
    return this.#client?.isReady === true;
  }

  readyFor(): boolean {
    return this.ready;
  }

  /**
   * The key's PTTL here, read on the watch (which tracks it from then on); UNKNOWN when disconnected, never waiting.
   * A key holding `own` (the reader's refused attempt, being undone) reads absent, or its undo would wake it.
   */
  async read(key: string, own: string | undefined): Promise<number> {
    const client = this.#open();
    if (client === undefined || !client.isReady) return UNKNOWN;
    const known = this.present.get(key);
    if (known !== undefined && known.value !== own && known.expires > performance.now() && !this.#reading.has(key)) {
      return known.expires === Infinity ? -1 : Math.ceil(known.expires - performance.now());
    }
    let reading = this.#reading.get(key);
    if (reading === undefined) {
      reading = { reads: 0, changes: 0 };
      this.#reading.set(key, reading);
    }
    reading.reads++;
    const seen = reading.changes;
    let value: unknown;
    let pttl: unknown;
    try {
      // A key of another type (a read/write lock's readers set) is held all the same: GET's WRONGTYPE
      // reads as present, and the PTTL (its last holder's expiry) arms tracking.
      [value, pttl] = await Promise.all([client.sendCommand(['GET', key], { timeout: 0 }).catch(wrongType),
        client.sendCommand(['PTTL', key], { timeout: 0 })]);
    } catch {
      // A read that failed (the master dropped) arms nothing; the waiter's schedule still runs.
      return UNKNOWN;
    } finally {
      if (--reading.reads === 0 && this.#reading.get(key) === reading) this.#reading.delete(key);
    }
    const changed = reading.changes !== seen;
    if (value === null || value === own) {
      this.present.delete(key);
      return -2;
    }
    // Another holder's key changed while this read was in flight (before or after the master
    // answered it, which the push's place among the replies no longer tells): it may be gone
    // already, and that is a release to wake for.
    if (changed) {
      this.present.delete(key);
      this.onChange(this.index, key, true);
      return UNKNOWN;
    }
    const ttl = Number(pttl);
    // A key of another type keeps '' for its value: no token is empty, so it is never the reader's own.
    this.present.set(key, { value: typeof value === 'string' ? value : '', expires: ttl < 0 ? Infinity : performance.now() + ttl });
    return ttl;
  }

  /** The keys' values here, read on the watch (tracked from then on): null where absent, undefined if unread. */
  async owners(keys: readonly string[]): Promise<readonly (string | null)[] | undefined> {
    const client = this.#open();
    if (client === undefined || !client.isReady) return undefined;
    try {
      const values = await client.sendCommand(['MGET', ...keys], { timeout: 0 });
      return Array.isArray(values) ? values.map((value) => value === null ? null : String(value)) : undefined;
    } catch {
      return undefined;
    }
  }

  /** Best effort: `member` leaves the sorted set `key` (a waiter leaving a gate's queue); unsent when not connected. */
  forget(key: string, member: string): void {
    const client = this.#client;
    if (client === undefined || !client.isReady) return;
    client.sendCommand(['ZREM', key, member], { timeout: 0 }).catch(() => undefined);
  }

  close(): void {
    this.#closed = true;
    const client = this.#client;
    this.#client = undefined;
    this.present.clear();
    client?.destroy();
  }

  #open(): WatchClient | undefined {
    if (this.#client !== undefined || this.#failed || this.#closed) return this.#client;
    let client: WatchClient;
    try {
      client = this.connection();
    } catch {
      // A client that cannot be duplicated this way (client-side caching on): this master is polled.
      this.#failed = true;
      return undefined;
    }
    client.on('invalidate', (key: Buffer | null) => {
      if (key === null) {
        this.present.clear();
        this.onChange(this.index, null, true);
        return;
      }
      const name = key.toString();
      const reading = this.#reading.get(name);
      if (reading !== undefined) reading.changes++;
      // Every change is told (held locks' keys are watched too, src/watch/guard.ts); whoever
      // listens keeps its own keys.
      this.onChange(this.index, name, this.present.delete(name));
    });
    client.on('ready', () => {
      this.onReady(this.index);
    });
    client.on('error', () => {
      // Tracking dies with the socket; the waiters fall back to their schedules until 'ready', and
      // those that listened here alone (gated waits) read the other masters again.
      this.present.clear();
      this.onLost(this.index);
    });
    client.connect().catch(() => undefined);
    this.#client = client;
    return client;
  }
}

/** An @redis/client master's watch: a RESP3 duplicate (same URL, TLS, credentials) with invalidations as events. */
export function redisWatchClient(source: RedisClient): WatchClient {
  return (source as Duplicable).duplicate({ RESP: 3, emitInvalidate: true, disableOfflineQueue: true, commandOptions: { timeout: 0 } });
}
