/**
 * Each contender behind the same three calls. Every peer is configured to do the same Redis work
 * as pipelock: one attempt (no retries), no automatic extension, owner-checked release.
 * Each is loaded only in the child process that measures it.
 */
import { once } from 'node:events';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REFUSED, TTL_MS, type Contender } from './contender.js';
import { delayFlushes, flushDelayOf } from './flush-delay.js';

export async function openContender(id: string, urls: readonly string[]): Promise<Contender> {
  switch (id) {
    case 'pipelock': return pipelock(urls, true);
    case 'pipelock-ioredis': return pipelock(await ioredisClients(urls), true);
    case 'pipelock-uncoalesced': return pipelock(urls, false);
    case 'pipelock-scripts': return pipelock(urls, true, 'scripts');
    case 'pipelock-native': return pipelock(urls, true, 'native');
    case 'pipelock-client': return pipelock(urls, true, 'auto', 'client');
    case 'pipelock-scripts-client': return pipelock(urls, true, 'scripts', 'client');
    case 'pipelock-ioredis-lean': return pipelock(await ioredisClients(urls), true, 'auto', 'lean');
    case 'pipelock-other': return pipelockOther(urls);
    case 'raw-coalesced': return (await import('./raw.js')).rawCoalesced(urls, TTL_MS);
    case 'raw-quorum': return (await import('./raw.js')).rawPerCommand(urls, TTL_MS, false);
    case 'raw-all': return (await import('./raw.js')).rawPerCommand(urls, TTL_MS, true);
    case 'node-redlock': return nodeRedlock(urls);
    case 'node-redlock-v4': return nodeRedlockV4(urls);
    case 'redlock-universal': return redlockUniversal(urls);
    case 'sesamecare-redlock': return sesamecare(urls);
    case 'redis-semaphore': return redisSemaphore(urls);
    default: {
      const delay = flushDelayOf(id);
      if (delay === undefined) throw new Error(`no adapter for contender ${JSON.stringify(id)}`);
      delayFlushes(delay);
      return pipelock(urls, true);
    }
  }
}

type Clients = readonly string[] | readonly import('ioredis').Redis[];
type Connection = 'auto' | 'lean' | 'client';

async function pipelock(clients: Clients, coalesce: boolean, commands: 'auto' | 'scripts' | 'native' = 'auto', connection: Connection = 'auto'): Promise<Contender> {
  const { Redlock } = await import('../../src/index.js');
  // quit() also quits the ioredis clients it was handed, as node-redlock v5 does.
  return pipelockContender(new Redlock(clients, { retryCount: 0, coalesce, commands, connection }));
}

type Pipelock = typeof import('../../src/index.js');

/**
 * pipelock from another checkout's src/ (PIPELOCK_OTHER_ROOT, set by bench:peers' --other-root):
 * the old main beside this tree in one interleaved run, so a before/after ratio is paired.
 */
async function pipelockOther(urls: readonly string[]): Promise<Contender> {
  const root = process.env.PIPELOCK_OTHER_ROOT;
  if (root === undefined || root === '') throw new Error('pipelock-other: PIPELOCK_OTHER_ROOT is not set (bench:peers --other-root DIR sets it)');
  const other = await import(pathToFileURL(join(root, 'src', 'index.ts')).href) as Pipelock;
  return pipelockContender(new other.Redlock(urls, { retryCount: 0 }), other);
}

/** A Redlock as a contender, through its public API: a refusal is REFUSED, any other error throws. */
export async function pipelockContender(redlock: import('../../src/index.js').Redlock, from?: Pipelock): Promise<Contender> {
  const { ResourceLockedError } = from ?? await import('../../src/index.js');
  type Lock = import('../../src/index.js').Lock;
  await redlock.ready();
  return {
    async acquire(key) {
      try {
        return await redlock.acquire([key], TTL_MS);
      } catch (error) {
        if (error instanceof ResourceLockedError) return REFUSED;
        throw error;
      }
    },
    async release(lock) {
      await (lock as Lock).release();
    },
    close: () => redlock.quit(),
  };
}

export async function ioredisClients(urls: readonly string[]): Promise<import('ioredis').Redis[]> {
  const { Redis } = await import('ioredis');
  // ioredis has no per-command timeout unless asked; its defaults otherwise.
  const clients = urls.map((url) => new Redis(url));
  await Promise.all(clients.map((client) => (client.status === 'ready' ? Promise.resolve() : once(client, 'ready'))));
  return clients;
}

export function closeIoredis(clients: readonly import('ioredis').Redis[]): Promise<void> {
  for (const client of clients) client.disconnect();
  return Promise.resolve();
}

/** node-redlock v5 and its fork share one API: `new Redlock(clients, settings)`, acquire → Lock.release(). */
interface RedlockLike {
  acquire(resources: string[], duration: number): Promise<{ release(): Promise<unknown> }>;
}

function redlockContender(redlock: RedlockLike, ExecutionError: abstract new (...args: never[]) => Error, clients: import('ioredis').Redis[]): Contender {
  type Lock = Awaited<ReturnType<RedlockLike['acquire']>>;
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
    close: () => closeIoredis(clients),
  };
}

async function nodeRedlock(urls: readonly string[]): Promise<Contender> {
  const { default: Redlock, ExecutionError } = await import('redlock');
  const clients = await ioredisClients(urls);
  return redlockContender(new Redlock(clients, { retryCount: 0 }), ExecutionError, clients);
}

async function sesamecare(urls: readonly string[]): Promise<Contender> {
  const { Redlock, ExecutionError } = await import('@sesamecare-oss/redlock');
  const clients = await ioredisClients(urls);
  return redlockContender(new Redlock(clients, { retryCount: 0 }), ExecutionError, clients);
}

async function redisSemaphore(urls: readonly string[]): Promise<Contender> {
  const { RedlockMutex } = await import('redis-semaphore');
  const clients = await ioredisClients(urls);
  // One attempt, no wait after a refusal (its retry delay runs even after the last attempt), no refresh timer.
  const options = { lockTimeout: TTL_MS, acquireAttemptsLimit: 1, retryInterval: 0, refreshInterval: 0 };
  return {
    async acquire(key) {
      const mutex = new RedlockMutex(clients, key, options);
      return (await mutex.tryAcquire()) ? mutex : REFUSED;
    },
    async release(lock) {
      await (lock as InstanceType<typeof RedlockMutex>).release();
    },
    close: () => closeIoredis(clients),
  };
}

/** node-redlock v4 (npm alias redlock4): `lock(resources, ttl)` → `Lock.unlock()`; a refusal is its one error class. */
async function nodeRedlockV4(urls: readonly string[]): Promise<Contender> {
  const { default: Redlock } = await import('redlock4');
  const clients = await ioredisClients(urls);
  // retryCount 0 is one attempt: v4 retries while attempts <= retryCount.
  const redlock = new Redlock(clients, { retryCount: 0 });
  return {
    async acquire(key) {
      try {
        return await redlock.lock([key], TTL_MS);
      } catch (error) {
        if (error instanceof Redlock.LockError) return REFUSED;
        throw error;
      }
    },
    async release(lock) {
      await (lock as InstanceType<typeof Redlock.Lock>).unlock();
    },
    close: () => closeIoredis(clients),
  };
}

/** redlock-universal: a RedLock per key (`createRedlock`, as its README shows), over one IoredisAdapter per master. */
async function redlockUniversal(urls: readonly string[]): Promise<Contender> {
  const { createRedlock, IoredisAdapter, LockAcquisitionError } = await import('redlock-universal');
  const clients = await ioredisClients(urls);
  const adapters = clients.map((client) => new IoredisAdapter(client));
  type Held = { redlock: ReturnType<typeof createRedlock>; handle: Awaited<ReturnType<ReturnType<typeof createRedlock>['acquire']>> };
  return {
    async acquire(key) {
      // retryAttempts 0: one attempt; its retry delay is not slept after the last one.
      const redlock = createRedlock({ adapters, key, ttl: TTL_MS, retryAttempts: 0 });
      try {
        return { redlock, handle: await redlock.acquire() } satisfies Held;
      } catch (error) {
        if (error instanceof LockAcquisitionError) return REFUSED;
        throw error;
      }
    },
    async release(lock) {
      const { redlock, handle } = lock as Held;
      // It reports a release short of a quorum as false, where the others throw: throw too.
      if (!await redlock.release(handle)) throw new Error(`redlock-universal: release of ${handle.key} reached no quorum`);
    },
    close: () => closeIoredis(clients),
  };
}
