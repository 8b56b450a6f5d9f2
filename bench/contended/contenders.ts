/**
 * The contended benchmark's contenders behind one shape: acquire (waiting as the library waits),
 * release, close. Unlike bench/peers, every library here retries: the point is how it waits.
 * Loaded only inside a worker thread, one client per thread (like one app process).
 */
import { closeIoredis, ioredisClients } from '../peers/adapters.js';

export interface Waiter {
  /** Resolves with the held lock, or rejects when the library gives up. */
  acquire(key: string, ttlMs: number): Promise<unknown>;
  release(held: unknown): Promise<void>;
  close(): Promise<void>;
}

/** node-redlock's retry schedule, given to pipelock, pipelock-poll and node-redlock alike. */
const kRetry = { retryCount: 50, retryDelay: 200, retryJitter: 100 } as const;

export async function openWaiter(id: string, urls: readonly string[]): Promise<Waiter> {
  switch (id) {
    case 'pipelock': return pipelock(urls, true);
    case 'pipelock-ioredis': return pipelock(await ioredisClients(urls), true);
    case 'pipelock-poll': return pipelock(urls, false);
    case 'node-redlock': return nodeRedlock(urls);
    case 'redis-semaphore': return redisSemaphore(urls);
    default: throw new Error(`no contended adapter for ${JSON.stringify(id)}`);
  }
}

/**
 * pipelock on URLs, or handed ioredis clients as a node-redlock v5 user would (its waiters are woken
 * through redirect tracking; quit() closes the clients it was given, as node-redlock v5's did).
 */
async function pipelock(masters: readonly string[] | readonly import('ioredis').Redis[], wakeups: boolean): Promise<Waiter> {
  const { Redlock } = await import('../../src/index.js');
  type Lock = import('../../src/index.js').Lock;
  // A Record, not a literal: `wakeups` is newer than some checkouts' Settings type, and this compiles either way.
  const settings: Record<string, unknown> = { ...kRetry, wakeups };
  const redlock = new Redlock(masters, settings);
  await redlock.ready();
  return {
    acquire: (key, ttlMs) => redlock.acquire([key], ttlMs),
    async release(held) {
      await (held as Lock).release();
    },
    close: () => redlock.quit(),
  };
}

async function nodeRedlock(urls: readonly string[]): Promise<Waiter> {
  const { default: Redlock } = await import('redlock');
  const clients = await ioredisClients(urls);
  // A variable, not a literal: bench/peers/redlock.d.ts declares only the settings bench/peers uses.
  const settings = { ...kRetry };
  const redlock = new Redlock(clients, settings);
  // It emits 'error' per refused vote; unheard, that emit throws into the acquisition.
  (redlock as unknown as import('node:events').EventEmitter).on('error', () => undefined);
  return {
    acquire: (key, ttlMs) => redlock.acquire([key], ttlMs),
    async release(held) {
      await (held as import('redlock').Lock).release();
    },
    close: () => closeIoredis(clients),
  };
}

async function redisSemaphore(urls: readonly string[]): Promise<Waiter> {
  const { RedlockMutex } = await import('redis-semaphore');
  const clients = await ioredisClients(urls);
  return {
    async acquire(key, ttlMs) {
      // Its own waiting (retryInterval 10 ms, unlimited attempts) for up to 10 s; no refresh timer.
      const mutex = new RedlockMutex(clients, key, { lockTimeout: ttlMs, acquireTimeout: 10_000, refreshInterval: 0 });
      await mutex.acquire();
      return mutex;
    },
    async release(held) {
      await (held as InstanceType<typeof RedlockMutex>).release();
    },
    close: () => closeIoredis(clients),
  };
}
