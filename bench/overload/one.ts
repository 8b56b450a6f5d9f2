/**
 * One burst in a fresh process (run with --expose-gc): `Promise.all` over N `acquire([key_i], ttl)`
 * on distinct keys, as a batch job would issue them, and what it cost. Prints one JSON line.
 *   --contender pipelock|redis-semaphore|node-redlock --n N --retry R --urls a,b,… [--ttl 30000]
 */
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { RedisClient } from '@redis/client';

const { values } = parseArgs({
  options: {
    contender: { type: 'string' },
    n: { type: 'string' },
    retry: { type: 'string' },
    urls: { type: 'string' },
    ttl: { type: 'string', default: '30000' },
  },
});
const contender = values.contender ?? '';
const n = Number(values.n);
const retryCount = Number(values.retry);
const ttl = Number(values.ttl);
const urls = (values.urls ?? '').split(',');
if (!['pipelock', 'redis-semaphore', 'node-redlock'].includes(contender) || !(n > 0) || !(retryCount >= 0) || !(ttl > 0) || urls[0] === '') {
  console.error('usage: one.ts --contender pipelock|redis-semaphore|node-redlock --n N --retry R --urls a,b,… [--ttl MS]');
  process.exit(2);
}
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');

/** What the burst needs of a lock library: one acquisition per key, and a way to close. */
interface Burst {
  acquire(key: string): Promise<unknown>;
  close(): Promise<void>;
}

async function ioredisClients(): Promise<import('ioredis').Redis[]> {
  const { Redis } = await import('ioredis');
  const clients = urls.map((url) => new Redis(url));
  await Promise.all(clients.map((client) => (client.status === 'ready' ? Promise.resolve() : once(client, 'ready'))));
  return clients;
}

async function open(): Promise<Burst> {
  switch (contender) {
    case 'pipelock': {
      const { Redlock } = await import('../../src/index.js');
      const redlock = new Redlock(urls, { retryCount });
      await redlock.ready();
      return { acquire: (key) => redlock.acquire([key], ttl), close: () => redlock.quit() };
    }
    case 'node-redlock': {
      const { default: Redlock } = await import('redlock');
      const clients = await ioredisClients();
      // Its defaults otherwise (retryDelay 200, retryJitter 100), as pipelock's.
      const redlock = new Redlock(clients, { retryCount });
      // It emits 'error' per failed vote: unheard, that throw would turn into the acquisition's error.
      (redlock as unknown as import('node:events').EventEmitter).on('error', () => undefined);
      return { acquire: (key) => redlock.acquire([key], ttl), close: () => Promise.all(clients.map((c) => c.quit())).then(() => undefined) };
    }
    default: {
      const { RedlockMutex } = await import('redis-semaphore');
      const clients = await ioredisClients();
      // retryCount + 1 attempts 200 ms apart (pipelock's retryDelay); no acquireTimeout cut short
      // of them, no refresh timer. acquire() rejects once the attempts are spent.
      const options = { lockTimeout: ttl, acquireAttemptsLimit: retryCount + 1, retryInterval: retryCount === 0 ? 0 : 200, acquireTimeout: 600_000, refreshInterval: 0 };
      return {
        async acquire(key) {
          const mutex = new RedlockMutex(clients, key, options);
          await mutex.acquire();
          return mutex;
        },
        close: () => Promise.all(clients.map((c) => c.quit())).then(() => undefined),
      };
    }
  }
}

const create = RedisClient.factory({});
const probes = await Promise.all(urls.map(async (url) => {
  const client = create({ url });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}));

/** Every command the masters ran (commandstats also counts those run inside scripts), INFO excluded. */
async function commands(): Promise<number> {
  let total = 0;
  for (const probe of probes) {
    const info = await probe.info('commandstats');
    for (const m of info.matchAll(/cmdstat_([a-z|]+):calls=(\d+)/g)) if (m[1] !== 'info') total += Number(m[2]);
  }
  return total;
}

const burst = await open();
gc();
const heapBefore = process.memoryUsage().heapUsed;
const commandsBefore = await commands();
let heapUsedPeak = heapBefore;
let heapTotalPeak = process.memoryUsage().heapTotal;
const sample = (): void => {
  const m = process.memoryUsage();
  if (m.heapUsed > heapUsedPeak) heapUsedPeak = m.heapUsed;
  if (m.heapTotal > heapTotalPeak) heapTotalPeak = m.heapTotal;
};
// Sampled: heapUsed peaks just before a collection and a busy loop samples late, so heapTotal
// (what V8 reserved, never below what was live) is reported beside it as the upper bound.
const sampler = setInterval(sample, 5);

let acquired = 0;
const errors: Record<string, number> = {};
let firstError: string | undefined;
const t0 = performance.now();
const settled: Promise<void>[] = new Array<Promise<void>>(n);
for (let i = 0; i < n; i++) {
  settled[i] = burst.acquire(`overload:${i}`).then(
    () => { acquired++; },
    (error: unknown) => {
      const e = error as { code?: unknown; name?: unknown; message?: unknown };
      const code = typeof e.code === 'string' ? e.code : typeof e.name === 'string' ? e.name : 'non-error';
      errors[code] = (errors[code] ?? 0) + 1;
      firstError ??= `${code}: ${String(e.message).slice(0, 300)}`;
    },
  );
}
sample();
const issuedMs = performance.now() - t0;
await Promise.all(settled);
const elapsedMs = performance.now() - t0;
clearInterval(sampler);
sample();
const executed = (await commands()) - commandsBefore;
console.log(JSON.stringify({
  contender,
  n,
  retryCount,
  ttl,
  acquired,
  failed: n - acquired,
  errors,
  firstError,
  issuedMs,
  elapsedMs,
  usPerLock: acquired > 0 ? (elapsedMs * 1000) / acquired : null,
  commands: executed,
  commandsPerLock: acquired > 0 ? executed / acquired : null,
  heapUsedPeakMB: heapUsedPeak / 2 ** 20,
  heapTotalPeakMB: heapTotalPeak / 2 ** 20,
  heapBeforeMB: heapBefore / 2 ** 20,
  heapBytesPerAcquisition: Math.round((heapUsedPeak - heapBefore) / n),
}));
await Promise.race([burst.close(), new Promise((resolve) => setTimeout(resolve, 5000))]);
await Promise.all(probes.map((p) => p.close()));
process.exit(0);
