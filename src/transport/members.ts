import { createRequire } from 'node:module';
import type { RedisClientOptions } from '@redis/client';
import { InvalidArgumentError } from '../errors.js';
import { isClusterSeeds, isRedisCluster } from './cluster/detect.js';
import { isIoredisCluster, type IoredisClusterClient } from './cluster/ioredis-cluster.js';
import type { ClusterSeeds, MasterClient, RedisClient } from '../clients.js';
import { checkIoredisClient, isIoredisClient } from './ioredis.js';

type RedisModule = typeof import('@redis/client');
let redisModule: RedisModule | undefined;

/**
 * @redis/client is an optional peer dependency (so is ioredis): a user who hands pipelock ioredis
 * clients need not install it. It is loaded the first time pipelock opens a connection from a URL.
 */
export function loadRedisClient(url: string): RedisModule {
  if (redisModule !== undefined) return redisModule;
  try {
    redisModule = createRequire(import.meta.url)('@redis/client') as RedisModule;
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'MODULE_NOT_FOUND') throw error;
    throw new InvalidArgumentError('clients', 'may be redis:// URLs only when @redis/client is installed (npm install @redis/client), since pipelock opens them with it', url);
  }
  return redisModule;
}

export type { MasterClient, RedisClient } from '../clients.js';

/**
 * @redis/client 6.x arms a 5 s timeout on every command by default (an AbortSignal.timeout and a
 * listener each); measured here that alone costs ~3/4 of acquire+release throughput. pipelock
 * bounds each attempt with one deadline instead, so every command it sends turns it off.
 */
export const NO_COMMAND_TIMEOUT = Object.freeze({ timeout: 0 });

/** Options for the connections pipelock opens itself from URLs; the user's own options win. */
export function ownedClientOptions(url: string, extra?: RedisClientOptions): RedisClientOptions {
  return {
    url,
    commandOptions: { timeout: 0 },
    ...extra,
    socket: {
      // Reconnect quickly but not in a hot loop: a dead master costs an attempt nothing while
      // it is down (operations to it fail at once), so there is no reason to back off far.
      reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2000),
      ...extra?.socket,
    },
  };
}

// createClient() builds a client class per distinct options object (a one-entry cache keyed on all
// options, URL included): ~40 ms per master. Without modules, scripts or functions the class is
// the same for every URL, so build it once.
let plainFactory: ((options: RedisClientOptions) => unknown) | undefined;

export function openClient(url: string, extra?: RedisClientOptions): RedisClient {
  const { createClient, RedisClient: RedisClientClass } = loadRedisClient(url);
  const options = ownedClientOptions(url, extra);
  if (extra?.modules !== undefined || extra?.functions !== undefined || extra?.scripts !== undefined || extra?.RESP !== undefined) {
    return createClient(options);
  }
  plainFactory ??= RedisClientClass.factory({}) as (options: RedisClientOptions) => unknown;
  return plainFactory(options) as RedisClient;
}

/**
 * Closes a connection pipelock opened: gracefully (pending replies first) when it is up, but for at
 * most `graceMs`, since a stalled master may never answer; at once when it is down or reconnecting.
 */
export async function closeClient(client: RedisClient, graceMs: number): Promise<void> {
  if (!client.isOpen) return;
  if (client.isReady && client.close !== undefined) {
    let timer: NodeJS.Timeout | undefined;
    const closed = await Promise.race([
      client.close().then(() => true),
      new Promise<false>((resolve) => (timer = setTimeout(resolve, graceMs, false))),
    ]);
    clearTimeout(timer);
    if (closed) return;
  }
  if (client.destroy !== undefined) client.destroy();
  else await client.quit?.();
}

/** `host:port` for messages; falls back to the position when the client says nothing usable. */
export function clientName(client: RedisClient, index: number): string {
  const options = client.options as { url?: unknown; socket?: { host?: unknown; port?: unknown; path?: unknown } } | undefined;
  const socket = options?.socket;
  if (typeof socket?.path === 'string') return socket.path;
  if (typeof options?.url === 'string') {
    try {
      const url = new URL(options.url);
      return `${url.hostname}:${url.port || '6379'}`;
    } catch {
      return `clients[${index}]`;
    }
  }
  if (socket?.host !== undefined || socket?.port !== undefined) {
    return `${typeof socket.host === 'string' ? socket.host : 'localhost'}:${typeof socket.port === 'number' ? socket.port : 6379}`;
  }
  return `clients[${index}]`;
}

/** One entry of Redlock's `clients`: a client, a redis:// URL, or a cluster's seed URLs. */
export type MemberEntry = MasterClient | string | ClusterSeeds | IoredisClusterClient;

/** A redis:// or rediss:// URL, or the typed error naming `name`. */
function checkUrl(entry: unknown, name: string): void {
  let protocol = '';
  try {
    protocol = new URL(entry as string).protocol;
  } catch { /* reported below */ }
  if (typeof entry !== 'string' || (protocol !== 'redis:' && protocol !== 'rediss:')) throw new InvalidArgumentError(name, 'must be a redis:// or rediss:// URL', entry);
}

/** Validates Redlock's `clients` once: a non-empty list of open clients or redis URLs, none repeated. */
export function checkClients(clients: unknown): MemberEntry[] {
  if (clients == null || typeof clients === 'string' || typeof (clients as Iterable<unknown>)[Symbol.iterator] !== 'function') {
    throw new InvalidArgumentError('clients', 'must be an array of @redis/client or ioredis clients, Redis Cluster clients, redis:// URLs or { cluster: [seed URLs] }', clients);
  }
  const list = [...(clients as Iterable<unknown>)];
  if (list.length === 0) throw new InvalidArgumentError('clients', 'must name at least one master', list);
  list.forEach((entry, i) => {
    const name = `clients[${i}]`;
    if (typeof entry === 'string') {
      checkUrl(entry, name);
    } else if (isClusterSeeds(entry)) {
      const seeds: unknown = entry.cluster;
      if (!Array.isArray(seeds) || seeds.length === 0) throw new InvalidArgumentError(`${name}.cluster`, 'must be a non-empty array of redis:// URLs (nodes of one Redis Cluster)', seeds);
      seeds.forEach((seed: unknown, j) => { checkUrl(seed, `${name}.cluster[${j}]`); });
    } else if (isRedisCluster(entry)) {
      if (!entry.isOpen) throw new InvalidArgumentError(name, 'must be open or connecting (call cluster.connect() first, or pass { cluster: [seed URLs] })', 'a closed cluster');
    } else if (isIoredisCluster(entry)) {
      if (entry.status === 'end' || entry.status === 'close') throw new InvalidArgumentError(name, `must be open or connecting (its status is "${entry.status}")`, 'a closed ioredis Cluster');
    } else if (isIoredisClient(entry)) {
      checkIoredisClient(entry, name);
    } else if (typeof entry !== 'object' || entry === null || typeof (entry as RedisClient).sendCommand !== 'function') {
      throw new InvalidArgumentError(name, 'must be an @redis/client or ioredis client, or a redis:// URL', entry);
    } else if (!(entry as RedisClient).isOpen) {
      throw new InvalidArgumentError(name, 'must be open or connecting (call client.connect() first, or pass a URL)', 'a closed client');
    }
    // Seeds are compared by their URLs: two entries naming the same cluster would vote twice.
    const first = isClusterSeeds(entry) ? list.findIndex((other) => isClusterSeeds(other) && other.cluster.some((url) => entry.cluster.includes(url))) : list.indexOf(entry);
    if (first !== i) throw new InvalidArgumentError(name, `must not repeat clients[${first}] (a master would vote twice)`, entry);
  });
  // node-redlock v5 sent ioredis keys through `evalsha`, which prefixes them: pipelock does the same
  // (MasterSet), so a lock names the same keys as v5's did, and must name them on every master.
  const prefixes = list.map((entry) => (isIoredisClient(entry) ? entry.options.keyPrefix ?? '' : ''));
  const odd = prefixes.findIndex((prefix) => prefix !== prefixes[0]);
  if (odd > 0) throw new InvalidArgumentError(`clients[${odd}]`, `must use the keyPrefix of clients[0] (${JSON.stringify(prefixes[0])}): a lock names the same keys on every master`, prefixes[odd]);
  return list as MemberEntry[];
}
