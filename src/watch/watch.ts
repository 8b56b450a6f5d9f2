import type { RedisClient } from '../clients.js';

/** What the watch needs of an @redis/client client beyond the transport's part. */
interface Duplicable extends RedisClient {
  duplicate(overrides: Record<string, unknown>): WatchClient;
}

/**
 * A watch connection as the Watch uses it, whatever client opened it: it emits 'invalidate' (a
 * key's Buffer, or null for every key) once per changed key, 'ready' when reads on it are tracked
 * (again), and 'error' when it dropped. @redis/client's RESP3 duplicate is one as it comes; an
 * ioredis member's is a pair of connections (src/watch/ioredis-link.ts).
 */
export interface WatchClient {
  readonly isReady: boolean;
  connect(): Promise<unknown>;
  sendCommand(args: readonly string[], options?: { timeout?: number }): Promise<unknown>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  on(event: string, listener: (...args: any[]) => void): unknown;
  destroy(): void;
}

/**
 * Told of a change to `key` on master `index` (null: of every key, e.g. a flush or a lost table);
 * `present`: the key had been read present by a waiter since its last change (a release to wake for).
 */
export type ChangeListener = (index: number, key: string | null, present: boolean) => void;

/** GET on a key that holds another type: present, held by someone else. */
function wrongType(error: unknown): unknown {
  if (error instanceof Error && error.message.startsWith('WRONGTYPE')) return WRONG_TYPE;
  throw error;
}
const WRONG_TYPE = Symbol('wrong type');

/** PTTL's answer when the watch could not read (not connected): nothing is known. */
export const UNKNOWN = -3;

/**
 * What waiting (src/waiting/waiters.ts) and the lost-lock guard (guard.ts) need of one member's
 * watch, whatever the member is: a standalone master's Watch, or a cluster member's ClusterWatch
 * (cluster-watch.ts), which routes each key to the watch of the shard that owns it.
 */
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
 * One master's watch connection: a connection of its own with client-side-caching invalidations
 * on (CLIENT TRACKING in the default mode), opened the first time someone waits: RESP3 for
 * @redis/client, a redirect link for ioredis and iovalkey (src/watch/ioredis-link.ts).
 *
 * Why tracking and a connection of its own (see docs/waiting-and-fairness.md): a tracked key costs
 * nothing until someone reads it on this connection, so the lock path — SET NX and the batch script
 * on the main connections — is untouched; Redis 7 pushes an invalidation within a millisecond of a
 * DEL or overwrite by any other connection; and the user's own connections are never switched into
 * RESP3 or tracking. A read (GET and PTTL) after a refusal both arms tracking (one-shot per read, so it is
 * read again by each sleep) and says whether the key is already gone — which closes the race between
 * the refusal and the read. Expiry is pushed late or never under load (redis.io/docs/latest/develop/
 * reference/client-side-caching), so the PTTL also sets a timer (src/waiting/waiters.ts).
 * PUBLISH in the release script (Redisson's way) would cost every release, waited on or not.
 */
export class Watch implements MemberWatch {
  /**
   * Keys read present since their last invalidation — only their change is a release — with what
   * was read: the value, and when its TTL ends (performance.now(); Infinity with none). While a key
   * is here its tracking is armed on this connection (Redis pushes the next change once, and every
   * push takes the key out), so a read of it is answered from here without a command: a lock passed
   * on among the callers of a process made each new head read it again, two commands per turn.
   */
  readonly present = new Map<string, { readonly value: string; readonly expires: number }>();
  /**
   * Per key with reads in flight: how many, and how many changes were told meanwhile. Each read
   * compares the count at its start with the count at its end: a single flag per key, taken by the
   * first read to finish, left the others of a burst (one per local turn of a passed lock) reading
   * the key present with its tracking already spent, and their heads slept to their next retry.
   */
  readonly #reading = new Map<string, { reads: number; changes: number }>();
  #client: WatchClient | undefined;
  #failed = false;

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
   * The key's PTTL on this master, read on the watch connection (which tracks it from then on);
   * UNKNOWN when the watch is not connected. Never waits for a connection: the offline queue is off.
   * A key holding `own` (the reader's refused attempt, whose undo is on its way on the main
   * connection) reads as absent and is not a release when it goes: without that, the undo woke
   * its own attempt.
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
      [value, pttl] = await Promise.all([client.sendCommand(['GET', key], { timeout: 0 }).catch(wrongType), client.sendCommand(['PTTL', key], { timeout: 0 })]);
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

  /**
   * The keys' values on this master, read on the watch connection (which tracks them from then on):
   * null where absent; undefined when the watch could not read. Used for held locks: one read per
   * change (our own renewals' PEXPIRE included).
   */
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
    const client = this.#client;
    this.#client = undefined;
    this.present.clear();
    client?.destroy();
  }

  #open(): WatchClient | undefined {
    if (this.#client !== undefined || this.#failed) return this.#client;
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

/**
 * An @redis/client master's watch connection: a RESP3 duplicate with invalidations as events. The
 * duplicate keeps the source's URL, TLS and credentials (AUTH/ACL pass through).
 */
export function redisWatchClient(source: RedisClient): WatchClient {
  return (source as Duplicable).duplicate({ RESP: 3, emitInvalidate: true, disableOfflineQueue: true, commandOptions: { timeout: 0 } });
}
