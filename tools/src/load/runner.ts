import { MessageChannel, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { Histogram } from './histogram.js';
import { LiveTotals, type LiveSample } from './live-totals.js';
import type { LoadOptions } from './options.js';
import type { Stage } from './scenario.js';
import type { CustomTask, FromWorker, ToWorker, WorkerTask } from './protocol.js';
import type { CpuSummary, OpName, TimelinePoint, WorkerReport } from './result.js';
import { untilWallClock } from './start-at.js';

export type { LiveSample } from './live-totals.js';

// Under tsx (npm run loadtest) this file is runner.ts and the worker is worker.ts, loaded through the
// `--import tsx` that worker threads inherit in execArgv; built, both are .js in dist/load/.
const kFromSource = import.meta.url.endsWith('.ts');
const kWorkerFile = new URL(kFromSource ? './worker.ts' : './worker.js', import.meta.url).href;
/** How long stopped workers get to hand in what they measured before they are terminated. */
const kStopGraceMs = 5_000;

export interface RunHooks {
  /** Every worker is connected and has been told to start. */
  readonly onStart: () => void;
  readonly onSecond: (sample: LiveSample) => void;
  /** Aborting it stops the run early; what was measured is still returned. */
  readonly signal: AbortSignal;
  /** A custom cycle instead of the operation (see CustomTask). */
  readonly custom?: CustomTask;
  /** Each complete second's histograms by operation, valid during the call only (--otlp). */
  readonly onHistograms?: (sample: LiveSample, histograms: Readonly<Record<OpName, Histogram>>) => void;
  /** Wall-clock ms since the epoch at which to start (warm-up first), once every worker is ready. */
  readonly startAt?: number;
}

export interface RunOutput {
  readonly reports: readonly WorkerReport[];
  /** Workers that did not hand in a report before they were terminated. */
  readonly missing: number;
  readonly interrupted: boolean;
  readonly measuredSeconds: number;
  readonly timeline: readonly TimelinePoint[];
  readonly cpu: Omit<CpuSummary, 'run'>;
}

/** The run's stages: the scenario's, or one of --duration at --rate (or --concurrency). */
export function stagesOf(options: LoadOptions): readonly Stage[] {
  return options.stages ?? [{ durationMs: options.durationMs, target: options.rate > 0 ? options.rate : options.concurrency, ramp: false }];
}

/** Runs the load on a piscina pool, one long task per worker, and gathers what each measured. */
export async function runLoad(options: LoadOptions, urls: readonly string[], prefix: string, hooks: RunHooks): Promise<RunOutput> {
  // From the repository, `pipelock` is the library's sources only under the pipelock-source condition
  // (workers inherit it in execArgv); without it a dist/ older than the sources would be measured.
  if (kFromSource && !import.meta.resolve('pipelock').endsWith('.ts')) {
    throw new Error('the load tester runs from source but pipelock resolves to its build: run node with --conditions=pipelock-source, as '
      + 'npm run loadtest does');
  }
  const count = options.workers;
  const pool = new Piscina<WorkerTask,
    WorkerReport>({ filename: kWorkerFile, minThreads: count, maxThreads: count, atomics: 'disabled', idleTimeout: 60_000 });
  const ports: MessagePort[] = [];
  const totals = new LiveTotals(count, options.rate > 0, hooks.onHistograms);
  let ready = 0;
  let allReady: () => void = () => undefined;
  const readiness = new Promise<void>((resolve) => {
    allReady = resolve;
  });

  const onMessage = (message: FromWorker): void => {
    if (message.type === 'ready') {
      if (++ready === count) allReady();
      return;
    }
    const sample = totals.add(message);
    if (sample !== undefined) hooks.onSecond(sample);
  };

  const tasks = Array.from({ length: count }, (_, worker) => {
    const { port1, port2 } = new MessageChannel();
    port1.on('message', onMessage);
    ports.push(port1);
    const stages = stagesOf(options);
    const rate = options.rate > 0 ? Math.max(...stages.map((s) => s.target)) / count : 0;
    const task: WorkerTask = {
      worker, workers: count, urls, operation: options.operation, kind: options.kind, depth: options.depth, permits: options.permits,
        concurrency: options.concurrency, rate,
      stages, ...(options.mix === undefined ? {} : { mix: options.mix }),
      warmupMs: options.warmupMs, durationMs: options.durationMs, keys: options.keys, prefix,
      holdMs: options.holdMs, lockMs: options.lockMs,
      retryCount: options.retryCount, retryDelayMs: options.retryDelayMs, retryJitterMs: options.retryJitterMs,
      ...(hooks.custom === undefined ? {} : { custom: hooks.custom }),
      port: port2,
    };
    return pool.run(task, { transferList: [port2] });
  });
  const send = (message: ToWorker): void => {
    for (const port of ports) port.postMessage(message);
  };

  let terminated = false;
  let grace: NodeJS.Timeout | undefined;
  const stop = (): void => {
    send({ type: 'stop' });
    grace ??= setTimeout(() => {
      terminated = true;
      void pool.destroy();
    }, kStopGraceMs);
  };
  // Any worker failing (an unreachable master, a bug) stops the others: one clear error, nothing left running.
  let failure: { error: unknown } | undefined;
  for (const task of tasks) {
    task.catch((error: unknown) => {
      if (terminated) return;
      failure ??= { error };
      stop();
    });
  }
  hooks.signal.addEventListener('abort', stop, { once: true });

  let cpuFrom: NodeJS.CpuUsage | undefined;
  let wallFrom = 0;
  let measuring: NodeJS.Timeout | undefined;
  try {
    const settled = Promise.allSettled(tasks);
    await Promise.race([readiness, settled]);
    if (ready === count && hooks.startAt !== undefined && failure === undefined) await untilWallClock(hooks.startAt, hooks.signal);
    if (ready === count && !hooks.signal.aborted && failure === undefined) {
      send({ type: 'start' });
      hooks.onStart();
      measuring = setTimeout(() => {
        cpuFrom = process.cpuUsage();
        wallFrom = performance.now();
      }, options.warmupMs);
    }
    const results = await settled;
    // A worker's last tick is posted just before its result, but on another channel: take what is queued.
    for (const port of ports) {
      for (let queued = receiveMessageOnPort(port); queued !== undefined; queued = receiveMessageOnPort(port))
        onMessage(queued.message as FromWorker);
    }
    if (failure !== undefined) throw failure.error;
    const cpu = cpuFrom === undefined ? { user: 0, system: 0 } : process.cpuUsage(cpuFrom);
    const wallMs = cpuFrom === undefined ? 0 : performance.now() - wallFrom;
    const reports = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    return {
      reports,
      missing: count - reports.length,
      interrupted: hooks.signal.aborted,
      measuredSeconds: Math.max(0, ...reports.map((r) => r.measuredMs)) / 1000,
      timeline: totals.timeline(),
      cpu: {
        userMs: cpu.user / 1000,
        systemMs: cpu.system / 1000,
        seconds: wallMs / 1000,
        percentOfOneCore: wallMs > 0 ? (100 * (cpu.user + cpu.system)) / 1000 / wallMs : 0,
      },
    };
  } finally {
    hooks.signal.removeEventListener('abort', stop);
    clearTimeout(measuring);
    clearTimeout(grace);
    for (const port of ports) port.close();
    totals.destroy();
    await pool.destroy();
  }
}
