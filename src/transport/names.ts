import type { ClusterShardNode, IoredisClient, RedisClient } from '../clients.js';

/** A master's name in messages, events and metrics: `host:port`, `cluster(host:port,…)`, else its position in `clients`. */
export function hostPort(host: unknown, port: unknown): string {
  const hostPart = typeof host === 'string' && host !== '' ? host : 'localhost';
  return `${hostPart}:${typeof port === 'number' || (typeof port === 'string' && port !== '') ? String(port) : '6379'}`;
}

/** A redis:// URL's `host:port`; the URL itself when it does not parse. */
export function urlName(url: string): string {
  try {
    const parsed = new URL(url);
    return hostPort(parsed.hostname, parsed.port);
  } catch {
    return url;
  }
}

export function redisClientName(client: RedisClient, index: number): string {
  const options = client.options as { url?: unknown; socket?: { host?: unknown; port?: unknown; path?: unknown } } | undefined;
  const socket = options?.socket;
  if (typeof socket?.path === 'string') return socket.path;
  if (typeof options?.url === 'string') {
    const name = urlName(options.url);
    return name === options.url ? `clients[${index}]` : name;
  }
  if (socket?.host !== undefined || socket?.port !== undefined) return hostPort(socket.host, socket.port);
  return `clients[${index}]`;
}

export function ioredisName(client: IoredisClient, index: number): string {
  const { host, port, path } = client.options;
  if (typeof path === 'string' && path !== '') return path;
  if (host !== undefined || port !== undefined) return hostPort(host, port);
  return `clients[${index}]`;
}

/** `cluster(host:port,…)` from the masters a cluster client knows (or its seeds). */
export function clusterName(masters: readonly string[], index: number): string {
  return masters.length === 0 ? `clusters[${index}]` : `cluster(${masters.join(',')})`;
}

export function shardName(node: ClusterShardNode): string {
  return hostPort(node.host, node.port);
}
