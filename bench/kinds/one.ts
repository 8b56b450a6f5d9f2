/**
 * One measurement of the kinds benchmark in a fresh process: one contender's closed loop of
 * acquire (waiting for a permit) → hold → release over a few semaphores, printed as JSON.
 *
 *   node --import tsx bench/kinds/one.ts CONTENDER URLS_JSON
 */
import { once } from 'node:events';
import { setTimeout as delay } from 'node:timers/promises';
import { kKinds, type KindRun } from './render.js';

interface Permit { release(): Promise<unknown> }
interface Contender {
  acquire(key: string): Promise<Permit>;
  close(): Promise<void>;
}

async function ioredis(urls: readonly string[]): Promise<import('ioredis').Redis[]> {
  const { Redis } = await import('ioredis');
  const clients = urls.map((url) => new Redis(url));
  await Promise.all(clients.map((client) => (client.status === 'ready' ? Promise.resolve() : once(client, 'ready'))));
  return clients;
}

async function open(id: string, urls: readonly string[]): Promise<Contender> {
  // Same waiting for every contender: retry every ~10 ms (redis-semaphore's default interval), no
  // automatic refresh, the same TTL.
  const wait = { lockTimeout: kKinds.ttlMs, acquireTimeout: 30_000, retryInterval: 10, refreshInterval: 0 };
  switch (id) {
    case 'pipelock': {
      const { Redlock } = await import('../../src/index.js');
      const redlock = new Redlock(urls, { retryCount: -1, retryDelay: 10, retryJitter: 5 });
      await redlock.ready();
      return { acquire: (key) => redlock.semaphore(key, kKinds.permits).acquire(kKinds.ttlMs), close: () => redlock.quit() };
    }
    case 'redis-semaphore': {
      const { Semaphore } = await import('redis-semaphore');
      const [client] = await ioredis(urls.slice(0, 1));
      return {
        acquire: async (key) => {
          const semaphore = new Semaphore(client!, key, kKinds.permits, wait);
          await semaphore.acquire();
          return semaphore;
        },
        close: () => {
          client!.disconnect();
          return Promise.resolve();
        },
      };
    }
    case 'redis-semaphore-redlock': {
      const { RedlockSemaphore } = await import('redis-semaphore');
      const clients = await ioredis(urls);
      return {
        acquire: async (key) => {
          const semaphore = new RedlockSemaphore(clients, key, kKinds.permits, wait);
          await semaphore.acquire();
          return semaphore;
        },
        close: () => {
          for (const client of clients) client.disconnect();
          return Promise.resolve();
        },
      };
    }
    default: throw new Error(`no contender ${id}`);
  }
}

const [id, urlsJson] = process.argv.slice(2);
const urls = JSON.parse(urlsJson!) as string[];
const contender = await open(id!, urls);
const waits: number[] = [];
const inside = new Map<string, number>();
let most = 0;
let overLimit = 0;
let errors = 0;
let measuring = false;
let stop = false;
let cycles = 0;

async function loop(worker: number): Promise<void> {
  while (!stop) {
    const key = `kinds-bench:${worker % kKinds.keys}`;
    const start = performance.now();
    let permit: Permit;
    try {
      permit = await contender.acquire(key);
    } catch {
      if (measuring) errors++;
      continue;
    }
    // Holders of this key right now, as this process sees them (every holder is in this process).
    const now = (inside.get(key) ?? 0) + 1;
    inside.set(key, now);
    if (measuring) {
      waits.push(performance.now() - start);
      most = Math.max(most, now);
      if (now > kKinds.permits) overLimit++;
    }
    await delay(kKinds.holdMs);
    inside.set(key, inside.get(key)! - 1);
    await permit.release().catch(() => undefined);
    if (measuring) cycles++;
  }
}

const loops = Array.from({ length: kKinds.concurrency }, (_, worker) => loop(worker));
await delay(kKinds.warmupMs);
measuring = true;
const from = performance.now();
await delay(kKinds.measureMs);
measuring = false;
const seconds = (performance.now() - from) / 1000;
stop = true;
await Promise.all(loops);
await contender.close();
waits.sort((a, b) => a - b);
const at = (q: number): number => waits[Math.min(waits.length - 1, Math.floor(q * waits.length))] ?? Number.NaN;
const run: KindRun = { contender: id!, cyclesPerSec: cycles / seconds, acquireP50Ms: at(0.5), acquireP99Ms: at(0.99), most, overLimit, errors };
console.log(JSON.stringify(run));
