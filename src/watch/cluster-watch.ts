import { slotOf } from '../transport/cluster/slots.js';
import type { ClusterShardNode, RedisClient, RedisClusterClient } from '../clients.js';
import { UNKNOWN, Watch, type ChangeListener, type MemberWatch } from './watch.js';

/**
 * A Redis Cluster member's watch: one Watch (src/watch/watch.ts: its own RESP3 connection with
 * CLIENT TRACKING) per shard master, opened the first time a key of that shard is read, each key
 * routed by the cluster client's slot table to the shard that owns it. Its invalidations are told
 * with the member's index, so waiting and the guard see one watch per member, as for a standalone
 * master.
 *
 * Why per shard: client-side caching is per node. A shard tracks the keys read on a connection to
 * it and pushes an invalidation when one changes there (redis.io/docs/latest/develop/reference/
 * client-side-caching); a connection to one node hears nothing of another's keys.
 *
 * When a slot moves (resharding, failover) the old shard's tracking of its keys says nothing any
 * more. A read on a shard that no longer owns the key is answered MOVED or ASK, which reads as
 * unknown (the waiter keeps its retry schedule); the lock calls on the member follow the
 * redirection and the cluster client replaces its slot table (cluster-slots.js #discover), and the
 * next read of the key goes to the new owner. A new table is seen here at the next read: watches
 * of nodes that are no longer masters are closed, and every waiting and held key of the member is
 * read again (as after a reconnect), so that each is tracked where it lives now.
 *
 * Each shard watch duplicates the cluster's own connection to that master (`slots[n].master.client`),
 * so TLS, credentials and `nodeAddressMap` carry over, and keeps watch.ts's semantics: own token
 * reads as absent, a change while reading is a release, no offline queue, never waits to connect.
 *
 * ioredis `Cluster` members get no ClusterWatch: ioredis speaks RESP2 only, where invalidations
 * come only through `CLIENT TRACKING ON REDIRECT <id>` to a second connection per shard subscribed
 * to `__redis__:invalidate` (the redirect re-sent after either reconnects). That is the same work
 * a standalone ioredis master would need, and those are polled too; so they keep their schedule.
 */
export class ClusterWatch implements MemberWatch {
  /** Per shard master (`host:port`), its watch. */
  readonly #shards = new Map<string, Watch>();
  /** The slot table the shard watches were opened under; a new one is a topology change. */
  #table: RedisClusterClient['slots'] | undefined;
  #closed = false;

  constructor(
    readonly index: number,
    readonly cluster: RedisClusterClient,
    readonly onChange: ChangeListener,
    readonly onReady: (index: number) => void,
    readonly onLost: (index: number) => void = () => undefined,
  ) {}

  readyFor(key: string): boolean {
    return this.#shard(key, false)?.ready === true;
  }

  read(key: string, own: string | undefined): Promise<number> {
    const watch = this.#shard(key, true);
    return watch === undefined ? Promise.resolve(UNKNOWN) : watch.read(key, own);
  }

  /**
   * The keys' values, one MGET per slot on the shard owning it (MGET's keys must share a slot:
   * CROSSSLOT otherwise); a key whose shard could not be read is undefined (unknown).
   */
  async owners(keys: readonly string[]): Promise<readonly (string | null | undefined)[] | undefined> {
    const bySlot = new Map<number, number[]>();
    for (let i = 0; i < keys.length; i++) {
      const slot = slotOf(keys[i]!);
      const group = bySlot.get(slot);
      if (group === undefined) bySlot.set(slot, [i]);
      else group.push(i);
    }
    const out = new Array<string | null | undefined>(keys.length);
    await Promise.all([...bySlot.values()].map(async (group) => {
      const watch = this.#shard(keys[group[0]!]!, true);
      const values = await watch?.owners(group.map((i) => keys[i]!));
      if (values !== undefined) for (let k = 0; k < group.length; k++) out[group[k]!] = values[k];
    }));
    return out;
  }

  forget(key: string, member: string): void {
    this.#shard(key, false)?.forget(key, member);
  }

  close(): void {
    this.#closed = true;
    for (const watch of this.#shards.values()) watch.close();
    this.#shards.clear();
  }

  /** The watch of the shard owning `key`'s slot now; with `open`, opened if it is not yet. */
  #shard(key: string, open: boolean): Watch | undefined {
    if (this.#closed) return undefined;
    const table = this.cluster.slots;
    if (table !== this.#table) this.#rehome(table);
    const master = table[slotOf(key)]?.master;
    if (master === undefined) return undefined;
    const address = `${master.host}:${master.port}`;
    let watch = this.#shards.get(address);
    if (watch !== undefined || !open) return watch;
    const client = (master as ClusterShardNode & { client?: RedisClient }).client;
    if (client === undefined) {
      // The cluster has not connected to that master yet (e.g. `minimizeConnections`): ask it to;
      // this read is unknown, and the next finds the connection to duplicate.
      void Promise.resolve(this.cluster.nodeClient(master)).catch(() => undefined);
      return undefined;
    }
    watch = new Watch(this.index, client, this.onChange, this.onReady, this.onLost);
    this.#shards.set(address, watch);
    return watch;
  }

  /**
   * The cluster client loaded a new slot table. Watches of nodes no longer masters are closed
   * (what they track is told by nobody: their keys' waiters are told they are lost); keys that
   * stayed track on, and every key of this member is read again where it lives now.
   */
  #rehome(table: RedisClusterClient['slots']): void {
    const first = this.#table === undefined;
    this.#table = table;
    if (first || this.#shards.size === 0) return;
    const masters = new Set(this.cluster.masters.map((master) => `${master.host}:${master.port}`));
    let lost = false;
    for (const [address, watch] of this.#shards) {
      if (masters.has(address)) continue;
      watch.close();
      this.#shards.delete(address);
      lost = true;
    }
    // Told after this read has been routed (the listeners read again through here).
    queueMicrotask(() => {
      if (this.#closed) return;
      if (lost) this.onLost(this.index);
      this.onReady(this.index);
    });
  }
}
