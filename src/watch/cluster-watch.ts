import { slotOf } from '../transport/cluster/slots.js';
import type { Shards } from './shards.js';
import { UNKNOWN, Watch, type ChangeListener, type MemberWatch } from './watch.js';

/**
 * A Redis Cluster member's watch: one Watch per shard master (tracking is per node), keys routed by the cluster's
 * slot table (src/watch/shards.ts), told with the member's index. Slot moves, and what carries over to each shard's
 * connection: docs/decisions/0012, "cluster-watch.ts".
 */
export class ClusterWatch implements MemberWatch {
  /** Per shard master (`host:port`), its watch. */
  readonly #shards = new Map<string, Watch>();
  /** The slot table's version the shard watches were opened under; a new one is a topology change. */
  #table: unknown;
  #closed = false;

  constructor(
    readonly index: number,
    readonly shards: Shards,
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

  /** The keys' values, one MGET per slot on its shard; undefined where the shard could not be read. */
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
    const table = this.shards.version;
    if (table !== this.#table) this.#rehome(table);
    const owner = this.shards.owner(slotOf(key), open);
    if (owner === undefined) return undefined;
    let watch = this.#shards.get(owner.address);
    if (watch !== undefined || !open) return watch;
    // Not connected to that master yet: this read is unknown, and the next finds the connection.
    if (owner.connection === undefined) return undefined;
    watch = new Watch(this.index, owner.connection, this.onChange, this.onReady, this.onLost);
    this.#shards.set(owner.address, watch);
    return watch;
  }

  /** A new slot table: watches of nodes no longer masters close, and every key of this member is read where it lives now. */
  #rehome(table: unknown): void {
    const first = this.#table === undefined;
    this.#table = table;
    if (first || this.#shards.size === 0) return;
    const masters = this.shards.masters();
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
