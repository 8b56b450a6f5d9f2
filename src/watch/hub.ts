import { IoredisClusterTransport } from '../transport/cluster/ioredis-cluster.js';
import { RedisClusterTransport } from '../transport/cluster/redis-cluster.js';
import { IoredisTransport, isIoredisClient } from '../transport/ioredis.js';
import { LeanTransport } from '../transport/lean/transport.js';
import { RedisTransport } from '../transport/redis.js';
import type { Transport } from '../transport/transport.js';
import { ClusterWatch } from './cluster-watch.js';
import { IoredisLink } from './ioredis-link.js';
import { ioredisShards, redisShards } from './shards.js';
import { redisWatchClient, Watch, type MemberWatch, type WatchClient } from './watch.js';
import type { RedisClient } from '../clients.js';

/** A lean member's watch connection: on @redis/client (RESP3 invalidations), or the given ioredis client's link. */
function leanWatchClient(transport: LeanTransport): WatchClient {
  const given = transport.given;
  if (given === undefined) return redisWatchClient(transport.watchSource());
  return isIoredisClient(given) ? new IoredisLink(given) : redisWatchClient(given as RedisClient);
}

/** What a member's watch tells: a key changed (null: every key), its connection is ready, or dropped. */
export interface WatchListener {
  /** `present`: the key had been read present by a waiter since its last change (a release to wake for). */
  changed(index: number, key: string | null, present: boolean): void;
  ready(index: number): void;
  lost(index: number): void;
}

/** The watch connections of a Redlock's members and the one place their events fan out from; nothing opens till a read. */
export class WatchHub {
  readonly watches: readonly (MemberWatch | undefined)[];
  readonly #listeners: WatchListener[] = [];

  constructor(transports: readonly Transport[]) {
    this.watches = transports.map((transport, index) => {
      if (transport instanceof LeanTransport)
        return new Watch(index, () => leanWatchClient(transport), this.#changed, this.#ready, this.#lost);
      if (transport instanceof RedisTransport)
        return new Watch(index, () => redisWatchClient(transport.client), this.#changed, this.#ready, this.#lost);
      if (transport instanceof IoredisTransport)
        return new Watch(index, () => new IoredisLink(transport.client), this.#changed, this.#ready, this.#lost);
      if (transport instanceof RedisClusterTransport)
        return new ClusterWatch(index, redisShards(transport.client), this.#changed, this.#ready, this.#lost);
      if (transport instanceof IoredisClusterTransport)
        return new ClusterWatch(index, ioredisShards(transport.connection), this.#changed, this.#ready, this.#lost);
      return undefined;
    });
  }

  /** Whether any member can be watched. */
  get watchable(): boolean {
    return this.watches.some((watch) => watch !== undefined);
  }

  listen(listener: WatchListener): void {
    this.#listeners.push(listener);
  }

  close(): void {
    for (const watch of this.watches) watch?.close();
  }

  readonly #changed = (index: number, key: string | null, present: boolean): void => {
    for (const listener of this.#listeners) listener.changed(index, key, present);
  };

  readonly #ready = (index: number): void => {
    for (const listener of this.#listeners) listener.ready(index);
  };

  readonly #lost = (index: number): void => {
    for (const listener of this.#listeners) listener.lost(index);
  };
}
