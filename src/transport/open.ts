import { createRequire } from 'node:module';
import type { RedisClientOptions } from '@redis/client';
import { InvalidArgumentError } from '../errors.js';
import type { RedisClient } from '../clients.js';
import { closeWithin } from './close.js';
import { asError } from '../util/checks.js';

type RedisModule = typeof import('@redis/client');
let redisModule: RedisModule | undefined;

/** @redis/client is an optional peer (as is ioredis), loaded when pipelock first opens a connection from a URL. */
export function loadRedisClient(url: string): RedisModule {
  if (redisModule !== undefined) return redisModule;
  try {
    redisModule = createRequire(import.meta.url)('@redis/client') as RedisModule;
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'MODULE_NOT_FOUND') throw error;
    throw new InvalidArgumentError('clients',
      'may be redis:// URLs only when @redis/client is installed (npm install @redis/client), since pipelock opens them with it', url);
  }
  return redisModule;
}

/**
 * Turns off @redis/client 6.x's default 5 s timeout per command, which costs more than the lock work: pipelock bounds
 * each attempt with one deadline (docs/decisions/0004-command-timeouts.md).
 */
export const NO_COMMAND_TIMEOUT = Object.freeze({ timeout: 0 });

/** pipelock's reconnect for its own connections: quick, but not a hot loop (a dead master costs an attempt nothing while it is down). */
export const defaultReconnect = (retries: number): number => Math.min(50 * 2 ** retries, 2000);

/** What pipelock sets on each @redis/client connection it opens (a master's, or a cluster's shards'); the user's own options win. */
export function ownedDefaults(extra?: RedisClientOptions): RedisClientOptions {
  return { commandOptions: { timeout: 0 }, ...extra, socket: { reconnectStrategy: defaultReconnect, ...extra?.socket } };
}

/** Options for the connections pipelock opens itself from URLs; the user's own options win. */
export function ownedClientOptions(url: string, extra?: RedisClientOptions): RedisClientOptions {
  return { url, ...ownedDefaults(extra) };
}

/** Starts connecting a client pipelock opened; `onError` hears a failed first connect as it hears the client's later errors. */
export function connectHeard(client: { connect(): Promise<unknown> }, onError: (error: Error) => void): void {
  client.connect().catch((error: unknown) => {
    onError(asError(error));
  });
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

/** Closes a connection pipelock opened: gracefully for at most `graceMs` (a stalled master may never answer), else at once. */
export async function closeClient(client: RedisClient, graceMs: number): Promise<void> {
  if (!client.isOpen) return;
  if (client.isReady && client.close !== undefined) {
    await closeWithin(graceMs, () => client.close!(), () => { void drop(client); });
    return;
  }
  await drop(client);
}

async function drop(client: RedisClient): Promise<void> {
  if (client.destroy !== undefined) client.destroy();
  else await client.quit?.();
}
