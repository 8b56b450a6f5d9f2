/**
 * One burst in a fresh process (run with --expose-gc): `Promise.all` over N `acquire([key_i], ttl)`
 * on distinct keys, as a batch job would issue them, then `Promise.allSettled` over the release of
 * every lock acquired, as a batch job finishing would, and what each half cost. Prints one JSON line.
 *   --contender pipelock|redis-semaphore|node-redlock --n N --retry R --urls a,b,… [--ttl 30000]
 *   [--release-profile FILE]: a CPU profile (.cpuprofile) of the release half alone.
 */
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { parseArgs } from 'node:util';
import { RedisClient } from '@redis/client';

const { values } = parseArgs({
  options: {
    contender: { type: 'string' },
    n: { type: 'string' },
    retry: { type: 'string' },
    urls: { type: 'string' },
    ttl: { type: 'string', default: '30000' },
    'release-profile': { type: 'string' },
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

/** What the burst needs of a lock library: one acquisition per key, its release, and a way to close. */
interface Burst {
  acquire(key: string): Promise<unknown>;
  release(lock: unknown): Promise<unknown>;
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
      type Held = Awaited<ReturnType<typeof redlock.acquire>>;
      return { acquire: (key) => redlock.acquire([key], ttl), release: (lock) => (lock as Held).release(), close: () => redlock.quit() };
    }
    case 'node-redlock': {
      const { default: Redlock } = await import('redlock');
      const clients = await ioredisClients();
      // Its defaults otherwise (retryDelay 200, retryJitter 100), as pipelock's.
      const redlock = new Redlock(clients, { retryCount });
      // It emits 'error' per failed vote: unheard, that throw would turn into the acquisition's error.
      (redlock as unknown as import('node:events').EventEmitter).on('error', () => undefined);
      type Held = Awaited<ReturnType<typeof redlock.acquire>>;
      return {
        acquire: (key) => redlock.acquire([key], ttl),
        release: (lock) => (lock as Held).release(),
        close: () => Promise.all(clients.map((c) => c.quit())).then(() => undefined),
      };
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
        release: (lock) => (lock as InstanceType<typeof RedlockMutex>).release(),
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

/** What a code names an error by, for the per-code tallies. */
function codeOf(error: unknown): string {
  const e = error as { code?: unknown; name?: unknown };
  return typeof e.code === 'string' ? e.code : typeof e.name === 'string' ? e.name : 'non-error';
}

/** The client's CPU time (user + system) in µs: less sensitive to a busy machine than the wall clock. */
function cpuOf(usage: NodeJS.CpuUsage): number {
  return usage.user + usage.system;
}

/** Keys left on the masters (each burst starts from FLUSHALL, so every key is one of the burst's). */
async function keysLeft(): Promise<number> {
  let total = 0;
  for (const probe of probes) total += await probe.dbSize();
  return total;
}

/** Heap peaks over one half of the burst, sampled every 5 ms. */
class Heap {
  readonly before = process.memoryUsage().heapUsed;
  usedPeak = this.before;
  totalPeak = process.memoryUsage().heapTotal;
  readonly #timer = setInterval(() => { this.sample(); }, 5);

  sample(): void {
    const m = process.memoryUsage();
    if (m.heapUsed > this.usedPeak) this.usedPeak = m.heapUsed;
    if (m.heapTotal > this.totalPeak) this.totalPeak = m.heapTotal;
  }

  stop(): void {
    clearInterval(this.#timer);
    this.sample();
  }
}

/** The inspector session profiling the release half, when --release-profile names a file. */
async function startProfile(): Promise<Session | undefined> {
  if (values['release-profile'] === undefined) return undefined;
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return session;
}

async function stopProfile(session: Session | undefined): Promise<void> {
  if (session === undefined) return;
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(values['release-profile']!, JSON.stringify(profile));
  session.disconnect();
}

const burst = await open();
gc();
const commandsBefore = await commands();
// Sampled: heapUsed peaks just before a collection and a busy loop samples late, so heapTotal
// (what V8 reserved, never below what was live) is reported beside it as the upper bound.
const heap = new Heap();

let acquired = 0;
const errors: Record<string, number> = {};
let firstError: string | undefined;
const locks: unknown[] = [];
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const settled: Promise<void>[] = new Array<Promise<void>>(n);
for (let i = 0; i < n; i++) {
  settled[i] = burst.acquire(`overload:${i}`).then(
    (lock) => {
      acquired++;
      locks.push(lock);
    },
    (error: unknown) => {
      const code = codeOf(error);
      errors[code] = (errors[code] ?? 0) + 1;
      firstError ??= `${code}: ${String((error as { message?: unknown }).message).slice(0, 300)}`;
    },
  );
}
heap.sample();
const issuedMs = performance.now() - t0;
await Promise.all(settled);
const elapsedMs = performance.now() - t0;
const cpuUs = cpuOf(process.cpuUsage(cpu0));
heap.stop();
const executed = (await commands()) - commandsBefore;

// The release half: every lock acquired, released at once.
gc();
const releaseCommandsBefore = await commands();
const releaseHeap = new Heap();
const releaseErrors: Record<string, number> = {};
let releaseFirstError: string | undefined;
const profiling = await startProfile();
const cpu1 = process.cpuUsage();
const t1 = performance.now();
const outcomes = await Promise.allSettled(locks.map((lock) => burst.release(lock)));
const releaseMs = performance.now() - t1;
const releaseCpuUs = cpuOf(process.cpuUsage(cpu1));
releaseHeap.stop();
await stopProfile(profiling);
for (const outcome of outcomes) {
  if (outcome.status === 'fulfilled') continue;
  const code = codeOf(outcome.reason);
  releaseErrors[code] = (releaseErrors[code] ?? 0) + 1;
  releaseFirstError ??= `${code}: ${String((outcome.reason as { message?: unknown }).message).slice(0, 300)}`;
}
const releaseFailed = Object.values(releaseErrors).reduce((a, b) => a + b, 0);
const released = locks.length - releaseFailed;
// A release settles at the quorum: the last masters' deletes may still be on their way. Counted
// once the keys left stop falling (checked every 250 ms).
let left = await keysLeft();
for (let before = -1; left > 0 && left !== before;) {
  await new Promise((resolve) => setTimeout(resolve, 250));
  before = left;
  left = await keysLeft();
}
const releaseExecuted = (await commands()) - releaseCommandsBefore;
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
  cpuUsPerLock: acquired > 0 ? cpuUs / acquired : null,
  commands: executed,
  commandsPerLock: acquired > 0 ? executed / acquired : null,
  heapUsedPeakMB: heap.usedPeak / 2 ** 20,
  heapTotalPeakMB: heap.totalPeak / 2 ** 20,
  heapBeforeMB: heap.before / 2 ** 20,
  heapBytesPerAcquisition: Math.round((heap.usedPeak - heap.before) / n),
  release: {
    released,
    failed: releaseFailed,
    errors: releaseErrors,
    firstError: releaseFirstError,
    elapsedMs: releaseMs,
    usPerLock: locks.length > 0 ? (releaseMs * 1000) / locks.length : null,
    cpuUsPerLock: locks.length > 0 ? releaseCpuUs / locks.length : null,
    commands: releaseExecuted,
    commandsPerLock: locks.length > 0 ? releaseExecuted / locks.length : null,
    heapUsedPeakMB: releaseHeap.usedPeak / 2 ** 20,
    heapTotalPeakMB: releaseHeap.totalPeak / 2 ** 20,
    keysLeft: left,
  },
}));
await Promise.race([burst.close(), new Promise((resolve) => setTimeout(resolve, 5000))]);
await Promise.all(probes.map((p) => p.close()));
process.exit(0);
