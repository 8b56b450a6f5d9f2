/**
 * Contended: how each library waits on ONE hot key. 64 contenders over 4 worker threads (16 each,
 * every thread with its own lock client and connections, like 4 app processes) loop acquire → hold
 * → release against 5 local masters for a fixed time; per (contender, hold) in the same run, FLUSHALL
 * before each.
 *   npm run bench:contended [-- --contenders pipelock,node-redlock --holds 0,1 --seconds 5 --json path]
 * Writes bench/results/contended.json; bench/report.ts renders it into BENCHMARKS.md.
 */
import { RedisClient } from '@redis/client';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { startMasters, type LocalMasters } from '../../src/testing/masters.js';
import { mergeEncoded, summarize } from '../../tools/src/load/histogram.js';
import { hostInfo, ROOT } from '../lib/host.js';
import { STOP, type FromWorker, type ThreadReport, type ToWorker, type WorkerInput } from './protocol.js';
import { CONTENDED_CONTENDERS, type ContendedResult, type ContendedRun } from './render.js';

const { values } = parseArgs({
  options: {
    contenders: { type: 'string', default: CONTENDED_CONTENDERS.join(',') },
    holds: { type: 'string', default: '0,1' },
    seconds: { type: 'string', default: '5' },
    json: { type: 'string', default: join(ROOT, 'bench', 'results', 'contended.json') },
  },
});
const contenders = values.contenders.split(',');
for (const c of contenders) if (!CONTENDED_CONTENDERS.includes(c)) throw new Error(`unknown contender ${JSON.stringify(c)}; known: ${CONTENDED_CONTENDERS.join(', ')}`);
const holds = values.holds.split(',').map((v) => {
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`--holds must be a list of integers ≥ 0 (ms), got ${JSON.stringify(values.holds)}`);
  return n;
});
const seconds = Number(values.seconds);
if (!(seconds > 0)) throw new Error(`--seconds must be > 0, got ${JSON.stringify(values.seconds)}`);

const kThreads = 4;
const kPerThread = 16;
const kContenders = kThreads * kPerThread;
const kKey = 'contended:hot';
const kTtlMs = 10_000;
// Node 20 does not run the `--import tsx` that worker threads inherit in execArgv, so the worker
// registers tsx's hooks itself before importing worker.ts.
const kWorkerBoot = `import('tsx/esm/api').then((tsx) => tsx.register()).then(() => import(${JSON.stringify(new URL('./worker.ts', import.meta.url).href)}))`;
const command = `npm run bench:contended${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
const host = hostInfo(['redlock', 'redis-semaphore', 'ioredis', '@redis/client', 'hdr-histogram-js'], command);

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`${what}: no answer in ${ms / 1000} s`));
    }, ms);
  });
  return Promise.race([promise, limit]).finally(() => {
    clearTimeout(timer);
  });
}

/** A promise and the functions that settle it (Promise.withResolvers is not in Node 20). */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: Error) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Marked handled: a thread that fails before its report is awaited must not crash the run.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

/** One worker thread: its ready and report messages as promises; an error or an early exit rejects both. */
function startThread(input: WorkerInput): { worker: Worker; ready: Promise<void>; report: Promise<ThreadReport> } {
  const worker = new Worker(kWorkerBoot, { eval: true, workerData: input });
  const ready = deferred<undefined>();
  const report = deferred<ThreadReport>();
  const fail = (error: Error): void => {
    ready.reject(error);
    report.reject(error);
  };
  worker.on('message', (message: FromWorker) => {
    if (message.type === 'ready') ready.resolve(undefined);
    else if (message.type === 'report') report.resolve(message.report);
    else fail(new Error(message.message));
  });
  worker.on('error', fail);
  worker.on('exit', (code) => {
    fail(new Error(`worker exited (code ${code}) without a report`));
  });
  return { worker, ready: ready.promise, report: report.promise };
}

/** Every command the masters ran, from INFO commandstats (which counts commands run inside scripts too), INFO excluded. */
async function openCommandCounter(urls: readonly string[]): Promise<{ count(): Promise<number>; close(): Promise<void> }> {
  const create = RedisClient.factory({});
  const probes = await Promise.all(urls.map(async (url) => {
    const probe = create({ url });
    probe.on('error', () => undefined);
    await probe.connect();
    return probe;
  }));
  return {
    async count() {
      const infos = await Promise.all(probes.map((probe) => probe.info('commandstats')));
      let total = 0;
      for (const info of infos) for (const m of info.matchAll(/cmdstat_([^:]+):calls=(\d+)/g)) if (m[1] !== 'info') total += Number(m[2]);
      return total;
    },
    close: () => Promise.all(probes.map((probe) => probe.close())).then(() => undefined),
  };
}

function addCodes(into: Record<string, number>, from: Readonly<Record<string, number>>): void {
  for (const [code, n] of Object.entries(from)) into[code] = (into[code] ?? 0) + n;
}

async function runOne(masters: LocalMasters, contender: string, holdMs: number): Promise<ContendedRun> {
  await Promise.all(masters.masters.map((master) => master.flush()));
  const shared = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT);
  const cells = new Int32Array(shared);
  const input: WorkerInput = { contender, urls: masters.urls, perThread: kPerThread, holdMs, key: kKey, ttlMs: kTtlMs, shared };
  const threads = Array.from({ length: kThreads }, () => startThread(input));
  const counter = await openCommandCounter(masters.urls);
  try {
    await withTimeout(Promise.all(threads.map((t) => t.ready)), 60_000, 'workers starting');
    const before = await counter.count();
    const t0 = performance.now();
    for (const t of threads) t.worker.postMessage({ type: 'go' } satisfies ToWorker);
    await sleep(seconds * 1000);
    // The window closes here for every thread at once: acquisitions completing later are not counted.
    Atomics.store(cells, STOP, 1);
    const windowMs = performance.now() - t0;
    const commands = (await counter.count()) - before;
    for (const t of threads) t.worker.postMessage({ type: 'stop' } satisfies ToWorker);
    const reports = await withTimeout(Promise.all(threads.map((t) => t.report)), 30_000, 'worker reports');
    return summarizeRun(contender, holdMs, windowMs, commands, reports);
  } finally {
    await counter.close();
    // Not drained: what the contenders still waiting would do next is outside the window (FLUSHALL comes next).
    await Promise.all(threads.map((t) => t.worker.terminate()));
  }
}

function summarizeRun(contender: string, holdMs: number, windowMs: number, commands: number, reports: readonly ThreadReport[]): ContendedRun {
  const histogram = mergeEncoded(reports.map((r) => r.histogram));
  const wait = summarize(histogram);
  histogram.destroy();
  const counts = reports.flatMap((r) => r.counts);
  const acquisitions = counts.reduce((a, b) => a + b, 0);
  const sumSquares = counts.reduce((a, b) => a + b * b, 0);
  const handoffsPerSec = acquisitions / (windowMs / 1000);
  const unfinishedMax = Math.round(Math.max(0, ...reports.map((r) => r.unfinishedMaxMs)) * 1000);
  // A contender still waiting when the window closed waited at least this long: starvation shows in max.
  const waitMax = Math.max(wait.max, unfinishedMax);
  const fifoBound = (kContenders * 1e6) / handoffsPerSec;
  const failures: Record<string, number> = {};
  const releaseFailures: Record<string, number> = {};
  for (const r of reports) {
    addCodes(failures, r.failures);
    addCodes(releaseFailures, r.releaseFailures);
  }
  return {
    contender,
    holdMs,
    windowMs,
    acquisitions,
    handoffsPerSec,
    waitP50: wait.p50,
    waitP99: wait.p99,
    waitP999: wait.p999,
    waitMax,
    waitMaxCompleted: wait.max,
    unfinished: reports.reduce((a, r) => a + r.unfinished, 0),
    unfinishedMax,
    fifoBound,
    p99OverFifo: wait.p99 / fifoBound,
    ratioCeiling: (windowMs * 1000) / fifoBound,
    maxOverFifo: waitMax / fifoBound,
    jain: sumSquares > 0 ? (acquisitions * acquisitions) / (counts.length * sumSquares) : NaN,
    counts,
    commands,
    commandsPerAcquisition: commands / acquisitions,
    violations: reports.reduce((a, r) => a + r.violations, 0),
    failures,
    releaseFailures,
    clamped: reports.reduce((a, r) => a + r.clamped, 0),
  };
}

function line(run: ContendedRun): string {
  const head = `${run.contender.padEnd(15)} hold ${run.holdMs} ms:`;
  if (run.error !== undefined) return `${head} FAILED ${run.error}`;
  const ms = (us = NaN): string => (us / 1000).toFixed(1);
  const failures = Object.entries(run.failures ?? {}).map(([code, n]) => `${code} ${n}`).join(', ') || '0';
  return `${head} ${Math.round(run.handoffsPerSec ?? 0).toLocaleString('en-US')} handoffs/s, wait p50 ${ms(run.waitP50)} p99 ${ms(run.waitP99)} ` +
    `p99.9 ${ms(run.waitP999)} max ${ms(run.waitMax)} ms (FIFO bound ${ms(run.fifoBound)} ms: p99 ${run.p99OverFifo?.toFixed(2)}×, max ${run.maxOverFifo?.toFixed(2)}×), ` +
    `Jain ${run.jain?.toFixed(4)}, ${run.commandsPerAcquisition?.toFixed(2)} commands/acq, ${run.violations} violations, failures ${failures}` +
    ((run.unfinished ?? 0) > 0 ? `, ${run.unfinished} unfinished at the stop` : '');
}

console.log(`bench:contended: ${kContenders} contenders (${kThreads} threads × ${kPerThread}) on one key, ${seconds} s per run; ` +
  'commands/acq counts commands run inside scripts too (INFO commandstats)');
const masters = await startMasters({ count: 5 });
const runs: ContendedRun[] = [];
try {
  for (const holdMs of holds) {
    for (const contender of contenders) {
      let run: ContendedRun;
      try {
        run = await runOne(masters, contender, holdMs);
      } catch (error) {
        run = { contender, holdMs, error: (error as Error).message };
      }
      runs.push(run);
      console.log(line(run));
    }
  }
} finally {
  await masters.close();
}
const result: ContendedResult = {
  kind: 'pipelock-bench-contended',
  host,
  masters: 5,
  threads: kThreads,
  perThread: kPerThread,
  key: kKey,
  ttlMs: kTtlMs,
  seconds,
  holds,
  runs,
  finished: new Date().toISOString(),
  loadavgEnd: loadavg()[0] ?? 0,
};
mkdirSync(dirname(values.json), { recursive: true });
writeFileSync(values.json, `${JSON.stringify(result, null, 1)}\n`);
console.log(`wrote ${values.json}`);
