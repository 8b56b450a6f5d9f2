import type { RedisClientOptions } from '@redis/client';
import { msUntil, within } from '../../util/time.js';
import { connectHeard, loadRedisClient, NO_COMMAND_TIMEOUT, ownedDefaults } from '../open.js';
import { closeWithin } from '../close.js';
import { listen } from '../listen.js';
import { clusterName, shardName, urlName } from '../names.js';
import { NodeUnavailableError } from '../../errors.js';
import type { RedisClusterClient } from '../../clients.js';
import { ClusterTransport } from './transport.js';

/** Shard connections that were ready once: not ready now means dropped, not still connecting. */
const seenReady = new WeakSet<object>();

/**
 * A cluster member over @redis/client's cluster client, whose `sendCommand(firstKey, …)` follows MOVED and ASK up to
 * `maxCommandRedirections`.
 */
export class RedisClusterTransport extends ClusterTransport {
  readonly name: string;

  constructor(readonly client: RedisClusterClient, index: number, name?: string) {
    super();
    this.name = name ?? clusterName(client.masters.map(shardName), index);
  }

  /** Opens a cluster client from seed URLs and connects it; `onError` hears its errors. */
  static open(seeds: readonly string[], index: number, clientOptions: RedisClientOptions | undefined,
    onError: (error: Error) => void): RedisClusterTransport {
    const { createCluster } = loadRedisClient(seeds[0]!);
    const cluster = createCluster({
      rootNodes: seeds.map((url) => ({ url })),
      defaults: ownedDefaults(clientOptions),
    }) as unknown as RedisClusterClient;
    const transport = new RedisClusterTransport(cluster, index, clusterName(seeds.map(urlName), index));
    cluster.on('error', onError);
    connectHeard(cluster, onError);
    return transport;
  }

  get isOpen(): boolean {
    return this.client.isOpen;
  }

  get isReady(): boolean {
    return this.client.isReady;
  }

  protected route(key: string | undefined, args: readonly string[]): Promise<unknown> {
    return this.client.sendCommand(key, false, args as string[], NO_COMMAND_TIMEOUT);
  }

  protected downShard(slot: number): string | undefined {
    // A connection still opening for the first time is waited for, as a standalone master's is.
    const shard = this.client.slots[slot]?.master;
    const connection = shard?.client;
    if (connection === undefined) return undefined;
    if (connection.isReady) seenReady.add(connection);
    else if (seenReady.has(connection)) return shardName(shard!);
    return undefined;
  }

  protected everyMaster(args: readonly string[]): Promise<unknown[]> {
    const cluster = this.client;
    return Promise.all(cluster.masters.map(async (node) => (await cluster.nodeClient(node)).sendCommand(args, NO_COMMAND_TIMEOUT)));
  }

  protected async connected(deadline: number): Promise<void> {
    const cluster = this.client;
    if (cluster.isOpen) {
      let listener: (() => void) | undefined;
      await within(new Promise<void>((resolve) => {
        listener = resolve;
        cluster.on('connect', resolve);
      }), msUntil(deadline), true);
      cluster.off('connect', listener!);
    }
    if (!cluster.isReady) throw new NodeUnavailableError(this.name);
  }

  onReady(fn: () => void): () => void {
    // The cluster client emits 'connect' once its slot table is loaded (cluster-slots.js connect()).
    return listen(this.client, 'connect', fn);
  }

  onError(fn: (error: Error) => void): () => void {
    return listen(this.client, 'error', fn);
  }

  async close(graceMs: number, keepGiven = false): Promise<void> {
    const cluster = this.client;
    if (keepGiven || !cluster.isOpen) return;
    await closeWithin(graceMs, () => cluster.close(), () => { cluster.destroy(); });
  }
}
