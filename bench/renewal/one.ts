/**
 * One renewal measurement in a fresh process (run with --expose-gc): hold N locks for a window
 * and count what keeping them alive costs. Prints one JSON line.
 *   --contender pipelock|pipelock-watch|pipelock-worker|node-redlock --locks N --duration MS --window MS --urls a,b,…
 *   [--prefix P]: key prefix (default renew:), to run two contenders side by side on the same masters.
 *   [--block MS]: instead, block the event loop for MS once the locks are held and count the locks lost.
 *   [--dist]: run the built package (dist/) rather than the source.
 *   [--settle MS]: wait this long after the locks are held before measuring (default 0.8 × duration).
 */
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import NodeRedlock from 'redlock';
import { RedisClient } from '@redis/client';
import type { Lock } from '../../src/index.js';

// --dist: the built package, as users run it, and run.ts runs this file as plain JavaScript (no tsx):
// tsx in the process is inherited by renewal 'worker''s thread (a module-hooks thread, its GC and
// start-up counted in the process's CPU), which a user's process does not have.
// The built package's path is not a literal: the typecheck must not need dist/, which a fresh clone lacks and the
// package test deletes and rebuilds while the checks run beside it (a typecheck failed so, 2026-11-30).
type Source = typeof import('../../src/index.js');
const kDist = '../../dist/index.js';
const { Redlock } = process.argv.includes('--dist') ? await import(kDist) as Source : await import('../../src/index.js');

const { values } = parseArgs({
  options: {
    contender: { type: 'string' },
    locks: { type: 'string' },
    duration: { type: 'string' },
    window: { type: 'string' },
    urls: { type: 'string' },
    block: { type: 'string' },
    prefix: { type: 'string' },
    dist: { type: 'boolean' },
    settle: { type: 'string' },
  },
});
/** Key prefix: two contenders can run side by side on the same masters (paired runs under the same load). */
const prefix = values.prefix ?? 'renew:';
const blockMs = Number(values.block ?? 0);
const contender = values.contender ?? '';
const count = Number(values.locks);
const duration = Number(values.duration);
const windowMs = Number(values.window);
const urls = (values.urls ?? '').split(',');
if (!['pipelock', 'pipelock-watch', 'pipelock-worker', 'node-redlock'].includes(contender) || !(count > 0) || !(duration > 0) || !(windowMs > 0) || urls.length === 0) {
  console.error('usage: one.ts --contender pipelock|pipelock-watch|pipelock-worker|node-redlock --locks N --duration MS --window MS --urls a,b,… [--block MS]');
  process.exit(2);
}
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with --expose-gc');

const create = RedisClient.factory({});
const probes = await Promise.all(urls.map(async (url) => {
  const client = create({ url });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}));

interface Counters {
  /** Commands sent by clients. While locks are only held, the contenders send nothing but EVALSHA/EVAL (and GET with watchHeld). */
  sent: number;
  /** Every command run, including those run inside scripts (commandstats counts both), INFO excluded. */
  executed: number;
  /** used_cpu_user + used_cpu_sys of all masters, in seconds. */
  redisCpu: number;
}

async function counters(): Promise<Counters> {
  const out = { sent: 0, executed: 0, redisCpu: 0 };
  for (const probe of probes) {
    const info = (await probe.info('commandstats')) + (await probe.info('cpu'));
    for (const m of info.matchAll(/cmdstat_([a-z|]+):calls=(\d+)/g)) {
      if (m[1] === 'info') continue;
      out.executed += Number(m[2]);
      // MGET: pipelock-watch's reads on its watch connections (watchHeld), one per master per batch of renewals.
      if (m[1] === 'evalsha' || m[1] === 'eval' || m[1] === 'mget') out.sent += Number(m[2]);
    }
    for (const m of info.matchAll(/used_cpu_(?:user|sys):([\d.]+)/g)) out.redisCpu += Number(m[1]);
  }
  return out;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
let lost = 0;
let release: () => Promise<void>;

gc();
const heapBefore = process.memoryUsage().heapUsed;
const acquireStart = performance.now();
if (contender.startsWith('pipelock')) {
  // Retries on: taking 100k locks while the first ones already renew can exceed a budget on a busy VM.
  const redlock = new Redlock(urls, { retryCount: 3, retryDelay: 50, automaticExtensionThreshold: 0, nodeTimeout: 2000, watchHeld: contender === 'pipelock-watch', renewal: contender === 'pipelock-worker' ? 'worker' : 'main' });
  await redlock.ready();
  const locks: Lock[] = [];
  for (let i = 0; i < count; i += 1000) {
    const batch = Array.from({ length: Math.min(1000, count - i) }, (_, j) => redlock.acquire([`${prefix}${i + j}`], duration, { autoExtend: true, onLockLost: (_l, e) => { if (lost++ === 0) console.error(`first loss at ${(performance.now() - acquireStart).toFixed(0)} ms: ${e.message.slice(0, 300)}`); } }));
    locks.push(...(await Promise.all(batch)));
  }
  release = async () => {
    for (let i = 0; i < locks.length; i += 5000) await Promise.all(locks.slice(i, i + 5000).map((l) => l.release().catch(() => undefined)));
    await redlock.quit();
  };
} else {
  // node-redlock v5: using() arms one timer and one extend round per lock; retries off as in bench/peers.
  const clients = urls.map((url) => new Redis(url, { lazyConnect: false }));
  const redlock = new NodeRedlock(clients, { retryCount: 0, automaticExtensionThreshold: 500 }) as unknown as {
    using(resources: string[], duration: number, routine: (signal: AbortSignal) => Promise<void>): Promise<void>;
    on(event: 'error', listener: () => void): void;
  };
  redlock.on('error', () => undefined);
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const running: Promise<void>[] = [];
  for (let i = 0; i < count; i += 1000) {
    const acquired: Promise<void>[] = [];
    for (let j = i; j < Math.min(count, i + 1000); j++) {
      let held!: () => void;
      acquired.push(new Promise<void>((resolve) => (held = resolve)));
      running.push(redlock.using([`${prefix}${j}`], duration, async (signal) => {
        held();
        signal.addEventListener('abort', () => lost++, { once: true });
        await stopped;
      }).catch(() => undefined));
    }
    await Promise.all(acquired);
  }
  release = async () => {
    stop();
    await Promise.all(running);
    await Promise.all(clients.map((c) => c.quit()));
  };
}
const acquireSeconds = (performance.now() - acquireStart) / 1000;
// Let the first renewals of the batch happen before measuring, then measure whole periods. A longer
// settle also leaves start-up's one-off work out (V8's memory reducer runs its GCs seconds after an
// isolate goes quiet: once in each of the worker's two isolates).
await sleep(Number(values.settle ?? duration * 0.8));
gc();
const heapPerLock = (process.memoryUsage().heapUsed - heapBefore) / count;
if (blockMs > 0) {
  // The blocked-loop scenario (issue 44): a synchronous stretch, then a look at what was lost.
  const until = performance.now() + blockMs;
  while (performance.now() < until) { /* a large parse, a CPU-bound transform */ }
  await sleep(Math.min(1000, duration / 2));
  console.log(JSON.stringify({ contender, locks: count, duration, blockMs, lost }));
  await release();
  await Promise.all(probes.map((p) => p.close()));
  process.exit(0);
}
const before = await counters();
const cpuBefore = process.cpuUsage();
// This thread's busy time: with renewal 'worker' the renewals' CPU is the worker's, not this loop's.
const eluBefore = performance.eventLoopUtilization();
const t0 = performance.now();
await sleep(windowMs);
const elapsed = performance.now() - t0;
const cpu = process.cpuUsage(cpuBefore);
const mainLoop = performance.eventLoopUtilization(eluBefore);
const after = await counters();
const perDuration = duration / elapsed;
const sent = (after.sent - before.sent) * perDuration;
console.log(JSON.stringify({
  contender,
  locks: count,
  duration,
  windowMs: Math.round(elapsed),
  commandsPerDuration: Math.round(sent),
  commandsPerLockPerDuration: sent / count,
  executedPerDuration: Math.round((after.executed - before.executed) * perDuration),
  redisCpuMsPerDuration: (after.redisCpu - before.redisCpu) * 1000 * perDuration,
  // Every thread of the process: the renewal worker's included.
  clientCpuMsPerDuration: ((cpu.user + cpu.system) / 1000) * perDuration,
  mainLoopBusyMsPerDuration: mainLoop.active * perDuration,
  // The kernel's part (socket writes and reads on loopback, timers, epoll) apart from the process's own work.
  clientSystemCpuMsPerDuration: (cpu.system / 1000) * perDuration,
  heapBytesPerLock: Math.round(heapPerLock),
  lost,
  acquireSeconds,
}));
await release();
await Promise.all(probes.map((p) => p.close()));
