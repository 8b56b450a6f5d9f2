/**
 * Local Redis Clusters of masters only, for tests and benchmarks: `shards` processes with `--cluster-enabled yes`,
 * slots assigned with CLUSTER ADDSLOTSRANGE (Redis ≥ 7.0) and joined with CLUSTER MEET.
 */
import { RedisClient } from '@redis/client';
import { setTimeout as delay } from 'node:timers/promises';
import { MasterStartError } from './errors.js';
import { startMasters, type LocalMaster, type LocalMasters } from './masters.js';
import type { StartMastersOptions } from './options.js';

const kSlots = 16384;
const kPollMs = 20;

export interface StartClustersOptions extends Omit<StartMastersOptions, 'count'> {
  /** How many independent clusters. @default 3 */
  clusters?: number;
  /** Masters (shards) per cluster. @default 3 */
  shards?: number;
  /** `cluster-node-timeout` in ms: how long a dead shard takes to be marked failed. @default 2000 */
  nodeTimeoutMs?: number;
  /** How long a cluster may take to reach `cluster_state:ok`. @default 10_000 */
  formTimeoutMs?: number;
}

export interface LocalShard {
  /** The server (stop, pause, restart…). */
  readonly master: LocalMaster;
  /** The node id (CLUSTER MYID). */
  readonly id: string;
  readonly url: string;
}

export interface LocalCluster {
  readonly index: number;
  readonly shards: readonly LocalShard[];
  /** Every shard's URL: the seed list `createCluster({ rootNodes })` or pipelock takes. */
  readonly urls: readonly string[];
  /** Sends one command to one shard on a short-lived connection. */
  command(shard: number, args: readonly string[]): Promise<unknown>;
}

export interface LocalClusters extends AsyncDisposable {
  readonly clusters: readonly LocalCluster[];
  /** The masters under the clusters (every shard of every cluster). */
  readonly masters: LocalMasters;
  close(): Promise<void>;
}

let clientFactory: ReturnType<typeof RedisClient.factory> | undefined;

/** Sends one command to a server on a connection opened for it (the fixture's own, never the user's). */
export async function serverCommand(url: string, args: readonly string[]): Promise<unknown> {
  clientFactory ??= RedisClient.factory();
  const client = clientFactory({ url, socket: { reconnectStrategy: false, connectTimeout: 2_000 } });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await client.sendCommand([...args]);
  } finally {
    client.destroy();
  }
}

export async function startClusters(options: StartClustersOptions = {}): Promise<LocalClusters> {
  const { clusters: count = 3, shards = 3, nodeTimeoutMs = 2_000, formTimeoutMs = 10_000, ...rest } = options;
  if (!Number.isInteger(count) || count < 1 || !Number.isInteger(shards) || shards < 1 || count * shards > 64) {
    throw new MasterStartError(`was not started: clusters (${count}) × shards (${shards}) must be positive integers with at `
      + `most 64 servers`, 0, '');
  }
  const masters = await startMasters({
    ...rest,
    count: count * shards,
    extraArgs: [
      ...(rest.extraArgs ?? []),
      // nodes.conf lands in each master's own temp dir (startMasters sets --dir).
      '--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', String(nodeTimeoutMs),
    ],
  });
  try {
    // Formed side by side: each waits about a second for its gossip to reach cluster_state:ok.
    const list = await Promise.all(Array.from({ length: count },
      (_, c) => form(c, masters.masters.slice(c * shards, (c + 1) * shards), formTimeoutMs)));
    return {
      clusters: list,
      masters,
      close: () => masters.close(),
      [Symbol.asyncDispose]: () => masters.close(),
    };
  } catch (error) {
    await masters.close();
    throw error;
  }
}

async function form(index: number, servers: readonly LocalMaster[], timeoutMs: number): Promise<LocalCluster> {
  const shards: LocalShard[] = [];
  const per = Math.ceil(kSlots / servers.length);
  for (const [i, server] of servers.entries()) {
    const id = await serverCommand(server.url, ['CLUSTER', 'MYID']) as string;
    const from = i * per;
    const to = Math.min(kSlots, from + per) - 1;
    await serverCommand(server.url, ['CLUSTER', 'ADDSLOTSRANGE', String(from), String(to)]);
    // Bump the epoch so every shard owns its slots under a distinct epoch (as redis-cli does).
    await serverCommand(server.url, ['CLUSTER', 'SET-CONFIG-EPOCH', String(i + 1)]);
    shards.push({ master: server, id, url: server.url });
  }
  for (const server of servers.slice(1)) await serverCommand(servers[0]!.url, ['CLUSTER', 'MEET', server.host, String(server.port)]);
  const deadline = performance.now() + timeoutMs;
  for (const server of servers) {
    for (;;) {
      const info = await serverCommand(server.url, ['CLUSTER', 'INFO']) as string;
      if (info.includes('cluster_state:ok') && info.includes(`cluster_known_nodes:${servers.length}`)) break;
      if (performance.now() > deadline)
        throw new MasterStartError(`cluster ${index} did not reach cluster_state:ok within ${timeoutMs} ms: `
          + info.split('\r\n').slice(0, 3).join(' '), server.port, '');
      await delay(kPollMs);
    }
  }
  return {
    index,
    shards,
    urls: servers.map((server) => server.url),
    command: (shard, args) => serverCommand(servers[shard]!.url, args),
  };
}
