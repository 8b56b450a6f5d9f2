import type { ClusterShardNode, IoredisClient, IoredisClusterClient, RedisClient, RedisClusterClient } from '../clients.js';
import { hostPort } from '../transport/names.js';
import { IoredisLink } from './ioredis-link.js';
import { redisWatchClient, type WatchClient } from './watch.js';

/** The master owning a slot, as a cluster member's watch needs it. */
export interface Shard {
  /** `host:port`: the watch keeps one connection per address. */
  readonly address: string;
  /** Opens a watch connection to it; undefined while the cluster client has no connection to copy. */
  readonly connection: (() => WatchClient) | undefined;
}

/** Where a cluster member's keys live, from its client's slot table: all a ClusterWatch needs of either cluster client. */
export interface Shards {
  /** Changes whenever the slot table may have: a new value is a topology change. */
  readonly version: unknown;
  /** The master owning `slot` now; with `open`, a master not yet connected is asked to connect. */
  owner(slot: number, open: boolean): Shard | undefined;
  /** Every master's address now. */
  masters(): ReadonlySet<string>;
}

/** An @redis/client cluster: `slots[n].master`, whose connection the watch duplicates (TLS, credentials, `nodeAddressMap` carry over). */
export function redisShards(cluster: RedisClusterClient): Shards {
  return {
    // The client replaces its table on every rediscovery (cluster-slots.js #discover).
    get version() { return cluster.slots; },
    owner(slot, open) {
      const master = cluster.slots[slot]?.master;
      if (master === undefined) return undefined;
      const client = (master as ClusterShardNode & { client?: RedisClient }).client;
      // Not connected to that master yet (e.g. `minimizeConnections`): ask it to; the next read finds it.
      if (client === undefined && open) void Promise.resolve(cluster.nodeClient(master)).catch(() => undefined);
      return { address: `${master.host}:${master.port}`, connection: client === undefined ? undefined : () => redisWatchClient(client) };
    },
    masters: () => new Set(cluster.masters.map((master) => `${master.host}:${master.port}`)),
  };
}

/** An ioredis `Cluster`: `slots[n]` node keys (master first), `nodes('master')`; its table changes in place ('refresh'). */
export function ioredisShards(cluster: IoredisClusterClient): Shards {
  let version = 0;
  cluster.on('refresh', () => { version++; });
  return {
    get version() { return version; },
    owner(slot, open) {
      const address = cluster.slots[slot]?.[0];
      if (address === undefined) return undefined;
      const node = open ? cluster.nodes('master').find((master) => nodeKey(master) === address) : undefined;
      return { address, connection: node === undefined ? undefined : () => new IoredisLink(node) };
    },
    masters: () => new Set(cluster.nodes('master').map(nodeKey)),
  };
}

/** The node key ioredis itself uses for a master (its `slots` table holds them). */
function nodeKey(node: IoredisClient): string {
  return hostPort(node.options.host, node.options.port);
}
