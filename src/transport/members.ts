import type { RedisClientOptions } from '@redis/client';
import type { IoredisClient, MemberEntry, RedisClient } from '../clients.js';
import { InvalidArgumentError } from '../errors.js';
import { isClusterSeeds, isRedisCluster } from './cluster/detect.js';
import { IoredisClusterTransport, isIoredisCluster } from './cluster/ioredis-cluster.js';
import { RedisClusterTransport } from './cluster/redis-cluster.js';
import { checkIoredisClient, IoredisTransport, isIoredisClient } from './ioredis.js';
import { fromIoredisClient, fromRedisClient } from './lean/given.js';
import { leanOptions } from './lean/options.js';
import { LeanTransport } from './lean/transport.js';
import { ioredisName, redisClientName, urlName } from './names.js';
import { RedisTransport } from './redis.js';
import type { Transport } from './transport.js';

/** The kinds of entry Redlock's `clients` may hold: the one place that tells them apart. */
export type MemberKind = 'url' | 'seeds' | 'redis-cluster' | 'ioredis-cluster' | 'ioredis' | 'redis';

export function memberKind(entry: unknown): MemberKind | undefined {
  if (typeof entry === 'string') return 'url';
  if (isClusterSeeds(entry)) return 'seeds';
  if (isRedisCluster(entry)) return 'redis-cluster';
  if (isIoredisCluster(entry)) return 'ioredis-cluster';
  if (isIoredisClient(entry)) return 'ioredis';
  if (typeof entry === 'object' && entry !== null && typeof (entry as RedisClient).sendCommand === 'function') return 'redis';
  return undefined;
}

/** A redis:// or rediss:// URL, or the typed error naming `name`. */
function checkUrl(entry: unknown, name: string): void {
  let protocol = '';
  try {
    protocol = new URL(entry as string).protocol;
  } catch { /* reported below */ }
  if (typeof entry !== 'string' || (protocol !== 'redis:' && protocol !== 'rediss:'))
    throw new InvalidArgumentError(name, 'must be a redis:// or rediss:// URL', entry);
}

/** Checks one entry of its kind: an open client, a URL, or seed URLs. */
function checkEntry(entry: unknown, kind: MemberKind | undefined, name: string): void {
  switch (kind) {
    case 'url':
      checkUrl(entry, name);
      return;
    case 'seeds': {
      const seeds: unknown = (entry as { cluster: unknown }).cluster;
      if (!Array.isArray(seeds) || seeds.length === 0)
        throw new InvalidArgumentError(`${name}.cluster`, 'must be a non-empty array of redis:// URLs (nodes of one Redis Cluster)', seeds);
      seeds.forEach((seed: unknown, j) => { checkUrl(seed, `${name}.cluster[${j}]`); });
      return;
    }
    case 'redis-cluster':
      if (!(entry as { isOpen: boolean }).isOpen) throw new InvalidArgumentError(name,
        'must be open or connecting (call cluster.connect() first, or pass { cluster: [seed URLs] })', 'a closed cluster');
      return;
    case 'ioredis-cluster': {
      const status = (entry as { status: string }).status;
      if (status === 'end' || status === 'close')
        throw new InvalidArgumentError(name, `must be open or connecting (its status is "${status}")`, 'a closed ioredis Cluster');
      return;
    }
    case 'ioredis':
      checkIoredisClient(entry as IoredisClient, name);
      return;
    case 'redis':
      if (!(entry as RedisClient).isOpen)
        throw new InvalidArgumentError(name, 'must be open or connecting (call client.connect() first, or pass a URL)', 'a closed client');
      return;
    default:
      throw new InvalidArgumentError(name, 'must be an @redis/client or ioredis client, or a redis:// URL', entry);
  }
}

/** Validates Redlock's `clients` once: a non-empty list of open clients or redis URLs, none repeated. */
export function checkClients(clients: unknown): MemberEntry[] {
  if (clients == null || typeof clients === 'string' || typeof (clients as Iterable<unknown>)[Symbol.iterator] !== 'function') {
    throw new InvalidArgumentError('clients',
      'must be an array of @redis/client or ioredis clients, Redis Cluster clients, redis:// URLs or { cluster: [seed URLs] }', clients);
  }
  const list = [...(clients as Iterable<unknown>)];
  if (list.length === 0) throw new InvalidArgumentError('clients', 'must name at least one master', list);
  list.forEach((entry, i) => {
    const name = `clients[${i}]`;
    const kind = memberKind(entry);
    checkEntry(entry, kind, name);
    // Seeds are compared by their URLs: two entries naming the same cluster would vote twice.
    const first = kind === 'seeds'
      ? list.findIndex((other) => isClusterSeeds(other)
      && other.cluster.some((url) => (entry as { cluster: readonly string[] }).cluster.includes(url)))
      : list.indexOf(entry);
    if (first !== i) throw new InvalidArgumentError(name, `must not repeat clients[${first}] (a master would vote twice)`, entry);
  });
  // node-redlock v5 sent ioredis keys through `evalsha`, which prefixes them: pipelock does the same
  // (src/engine/keys.ts), so a lock names the same keys as v5's did, and must name them on every master.
  const prefixes = list.map(prefixOf);
  const odd = prefixes.findIndex((prefix) => prefix !== prefixes[0]);
  if (odd > 0) throw new InvalidArgumentError(`clients[${odd}]`,
    `must use the keyPrefix of clients[0] (${JSON.stringify(prefixes[0])}): a lock names the same keys on every master`, prefixes[odd]);
  return list as MemberEntry[];
}

/** What an entry's client puts before every key (ioredis' `keyPrefix`, a Cluster's too); '' for none. */
function prefixOf(entry: unknown): string {
  if (isIoredisClient(entry) || isIoredisCluster(entry)) return (entry as { options: { keyPrefix?: string } }).options.keyPrefix ?? '';
  return '';
}

/**
 * The one key prefix of checked entries (checkClients refused entries that differ): the only place
 * the clients' `keyPrefix` is read. pipelock's own connections drop it, and src/engine/keys.ts puts it back.
 */
export function keyPrefixOf(entries: readonly MemberEntry[]): string {
  return entries.length === 0 ? '' : prefixOf(entries[0]);
}

/**
 * Which connection pipelock sends on (setting `connection`): 'auto' and 'client', @redis/client for
 * URLs and the clients given as they are; 'lean', its own lean connection for every standalone master
 * (beside a given client, opened from its options).
 */
export type ConnectionMode = 'auto' | 'lean' | 'client';

/**
 * The transport of one checked entry. `onError` hears the errors of connections pipelock opens, which have no other
 * listener: an unheard 'error' would crash the process.
 */
export function openTransport(
  entry: MemberEntry,
  index: number,
  clientOptions: RedisClientOptions | undefined,
  onError: (error: Error) => void,
  mode: ConnectionMode = 'auto',
): Transport {
  switch (memberKind(entry)) {
    case 'url': {
      const url = entry as string;
      if (mode === 'client') return RedisTransport.open(url, index, clientOptions, onError);
      return LeanTransport.open(url, urlName(url), leanOptions(url, clientOptions), clientOptions, onError);
    }
    case 'seeds':
      return RedisClusterTransport.open((entry as { cluster: readonly string[] }).cluster, index, clientOptions, onError);
    case 'redis-cluster':
      return new RedisClusterTransport(entry as never, index);
    case 'ioredis-cluster': {
      const transport = new IoredisClusterTransport(entry as never, index);
      transport.onError(onError);
      return transport;
    }
    case 'ioredis': {
      const client = entry as IoredisClient;
      if (mode === 'lean')
        return LeanTransport.beside(client, ioredisName(client, index), fromIoredisClient(client), client.options.keyPrefix ?? '', onError);
      const transport = new IoredisTransport(client, index);
      transport.onError(onError);
      return transport;
    }
    default: {
      const client = entry as RedisClient;
      if (mode === 'lean') return LeanTransport.beside(client, redisClientName(client, index), fromRedisClient(client), '', onError);
      return new RedisTransport(client, index);
    }
  }
}
