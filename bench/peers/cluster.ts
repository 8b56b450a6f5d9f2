/**
 * bench:peers' cluster configuration: the contenders that can run on Redis Cluster members (their
 * `onCluster` in contender.ts), each member a local cluster of several shards, and what a run
 * counts there besides cycles/s: script calls per shard, and for pipelock per coalesced tick.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { once } from 'node:events';
import { NODE_CALL_CHANNEL, type NodeCallMessage } from '../../src/engine/channels.js';
import { pipelockContender } from './adapters.js';
import { REFUSED, TTL_MS, type Contender } from './contender.js';
import { openInfoClients, type InfoClient } from './redis-cpu.js';

/** `members`: per member, the URLs of its shards. */
export async function openClusterContender(id: string, members: readonly (readonly string[])[]): Promise<Contender> {
  switch (id) {
    case 'pipelock': {
      const { Redlock } = await import('../../src/index.js');
      return pipelockContender(new Redlock(members.map((urls) => ({ cluster: urls })), { retryCount: 0 }));
    }
    case 'pipelock-ioredis': {
      const { Redlock } = await import('../../src/index.js');
      // quit() also quits the Clusters it was handed, as node-redlock v5 does.
      return pipelockContender(new Redlock(await ioredisClusters(members), { retryCount: 0 }));
    }
    case 'raw-quorum': return (await import('./raw.js')).rawPerCommandClusters(members, TTL_MS, false);
    case 'node-redlock': return nodeRedlock(members);
    default: throw new Error(`contender ${JSON.stringify(id)} does not run on cluster members`);
  }
}

async function ioredisClusters(members: readonly (readonly string[])[]): Promise<import('ioredis').Cluster[]> {
  const { Cluster } = await import('ioredis');
  const clusters = members.map((urls) => new Cluster(urls.map((url) => {
    const { hostname, port } = new URL(url);
    return { host: hostname, port: Number(port) };
  })));
  await Promise.all(clusters.map((cluster) => (cluster.status === 'ready' ? Promise.resolve() : once(cluster, 'ready'))));
  return clusters;
}

async function nodeRedlock(members: readonly (readonly string[])[]): Promise<Contender> {
  const { default: Redlock, ExecutionError } = await import('redlock');
  const clusters = await ioredisClusters(members);
  const redlock = new Redlock(clusters, { retryCount: 0 });
  type Lock = Awaited<ReturnType<typeof redlock.acquire>>;
  return {
    async acquire(key) {
      try {
        return await redlock.acquire([key], TTL_MS);
      } catch (error) {
        if (error instanceof ExecutionError) return REFUSED;
        throw error;
      }
    },
    async release(lock) {
      await (lock as Lock).release();
    },
    close() {
      for (const cluster of clusters) cluster.disconnect();
      return Promise.resolve();
    },
  };
}

/** What a cluster run counts besides the workload's figures (RunResult.cluster). */
export interface ClusterCounts {
  readonly members: number;
  readonly shards: number;
  /** EVALSHA + EVAL over the window, every shard of every member. */
  readonly scriptCalls: number;
  /** pipelock's coalesced ticks over the window (batches cut per member, the node-call channel); 0 for others. */
  readonly ticks: number;
  /** Lock operations those ticks carried. */
  readonly operations: number;
}

/**
 * Counts a window's script calls per shard (INFO commandstats, EVALSHA + EVAL: commandstats also
 * counts the commands a script runs, so SET is not counted, and neither is a lone SET NX outside
 * a script) and pipelock's ticks (the `pipelock:node-call` channel, one message per batch a
 * member's coalescer cut; subscribed from the start, so warm-up and window pay the same).
 */
export class ClusterCalls {
  readonly #clients: InfoClient[];
  readonly #members: number;
  #counting = false;
  #ticks = 0;
  #operations = 0;
  #before = 0;
  #after = 0;
  readonly #onCall = (message: unknown): void => {
    if (!this.#counting) return;
    this.#ticks++;
    this.#operations += (message as NodeCallMessage).operations;
  };

  private constructor(clients: InfoClient[], members: number) {
    this.#clients = clients;
    this.#members = members;
    subscribe(NODE_CALL_CHANNEL, this.#onCall);
  }

  static async open(members: readonly (readonly string[])[]): Promise<ClusterCalls> {
    return new ClusterCalls(await openInfoClients(members.flat()), members.length);
  }

  async start(): Promise<void> {
    this.#before = await this.#scriptCalls();
    this.#counting = true;
  }

  async end(): Promise<void> {
    this.#counting = false;
    this.#after = await this.#scriptCalls();
  }

  counts(): ClusterCounts {
    return { members: this.#members, shards: this.#clients.length, scriptCalls: this.#after - this.#before, ticks: this.#ticks, operations: this.#operations };
  }

  close(): void {
    unsubscribe(NODE_CALL_CHANNEL, this.#onCall);
    for (const client of this.#clients) client.destroy();
  }

  async #scriptCalls(): Promise<number> {
    const infos = await Promise.all(this.#clients.map((client) => client.sendCommand(['INFO', 'commandstats'])));
    let calls = 0;
    for (const info of infos) for (const match of String(info).matchAll(/cmdstat_(?:evalsha|eval):calls=(\d+)/g)) calls += Number(match[1]);
    return calls;
  }
}
