import type { RedisClientOptions } from '@redis/client';
import type { IoredisClient, RedisClient } from '../../clients.js';
import { leanOptions, type LeanOptions, type Reconnect } from './options.js';

/** The part of ioredis' options a lean connection reads (ioredis and iovalkey name them alike). */
interface IoredisConnectOptions {
  host?: string;
  port?: number;
  path?: string | null;
  tls?: Record<string, unknown>;
  // ioredis fills unset ones with null.
  username?: string | null;
  password?: string | null;
  db?: number | null;
  connectionName?: string | null;
  connectTimeout?: number;
  keepAlive?: number;
  noDelay?: boolean;
  retryStrategy?: (times: number) => number | null | undefined;
}

/** A lean connection's options from an @redis/client client's own (URL, socket, credentials, name). */
export function fromRedisClient(client: RedisClient): LeanOptions {
  const options = (client.options ?? {}) as RedisClientOptions;
  return leanOptions(options.url ?? 'redis://localhost:6379', options);
}

/** A lean connection's options from an ioredis client's, with ioredis' defaults where unset. */
export function fromIoredisClient(client: IoredisClient): LeanOptions {
  const o = client.options as IoredisConnectOptions;
  const retry = o.retryStrategy;
  // ioredis retries after retryStrategy's delay and stops when it returns no number.
  const reconnect: Reconnect = retry === undefined ? (times) => Math.min(times * 50, 2000) : (retries) => retry(retries + 1) ?? false;
  return {
    host: o.host ?? 'localhost',
    port: o.port ?? 6379,
    path: typeof o.path === 'string' && o.path !== '' ? o.path : undefined,
    tls: o.tls !== undefined,
    socket: { ...o.tls, noDelay: o.noDelay ?? true, keepAlive: (o.keepAlive ?? 0) > 0, keepAliveInitialDelay: o.keepAlive ?? 0 },
    connectTimeout: o.connectTimeout ?? 10_000,
    reconnect,
    username: o.username ?? undefined,
    password: o.password ?? undefined,
    name: o.connectionName ?? undefined,
    database: o.db ?? undefined,
  };
}
