/**
 * A piscina worker: one long task per thread. It owns its Redlock and connections, waits for the
 * start, runs its loop through warm-up and the measured window, and returns plain data only.
 */
import { once, setMaxListeners } from 'node:events';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { MessagePort } from 'node:worker_threads';
import { Redlock } from 'pipelock';
import { memberOf } from './members.js';
import type { Cycle, CustomCycle, CustomCycleFactory, CycleContext } from './cycle.js';
import { cycleForKind, lockerFor } from './kinds.js';
import { closedLoop, openLoop, type Loop, type Window } from './loops.js';
import { Meter } from './meter.js';
import { Mix } from './mix.js';
import { Parts } from './parts.js';
import { Plan } from './schedule.js';
import type { FromWorker, ToWorker, WorkerTask } from './protocol.js';
import type { WorkerReport } from './result.js';

const kReadyTimeoutMs = 5_000;
const kTickMs = 1_000;

export default async function runWorker(task: WorkerTask): Promise<WorkerReport> {
  const { port } = task;
  const redlock =
    new Redlock(task.urls.map(memberOf), { retryCount: task.retryCount, retryDelay: task.retryDelayMs, retryJitter: task.retryJitterMs });
  let custom: CustomCycle | undefined;
  try {
    await redlock.ready(kReadyTimeoutMs);
    if (task.custom !== undefined) {
      // require, not import(): under tsx, worker threads get its CommonJS hook only (piscina loads
      // this file through it too); built, require() of an ES module works on the Node versions we support.
      const factory = (createRequire(import.meta.url)(fileURLToPath(task.custom.module)) as { default: CustomCycleFactory }).default;
      custom = await factory(task.custom.data, { index: task.worker, prefix: task.prefix });
    }
    return await measure(task, redlock, custom?.cycle ?? cycleForKind(task.kind, task.operation, task.depth));
  } finally {
    port.close();
    await custom?.close();
    await redlock.quit();
  }
}

async function measure(task: WorkerTask, redlock: Redlock, cycle: Cycle): Promise<WorkerReport> {
  const { port } = task;
  // Fairness is per closed-loop slot; renew-hold's slots each hold one lock for the whole run, which
  // its own summary reports. using() hides its Lock, so its attempts are unknown.
  const meter = new Meter({
    contenders: task.rate > 0 || task.operation === 'renew-hold' ? 0 : task.concurrency,
    attempts: task.custom !== undefined || task.operation !== 'using',
    open: task.rate > 0,
  });
  // ending: the window is over, start nothing more; cancel: abort the waits of cycles in flight.
  const ending = new AbortController();
  const cancel = new AbortController();
  // Every in-flight cycle's retry wait listens on it: thousands of listeners are expected.
  setMaxListeners(0, cancel.signal);
  const stopped = once(ending.signal, 'abort').then(() => undefined);
  let started = false;
  let go: (origin: number | undefined) => void = () => undefined;
  const begun = new Promise<number | undefined>((resolve) => {
    go = resolve;
  });
  const window: Window = { from: Infinity, to: Infinity, countAll: task.operation === 'renew-hold', byEnd: task.rate > 0 };
  port.on('message', (message: ToWorker) => {
    if (message.type === 'start' && !started) {
      started = true;
      const now = performance.now();
      window.from = now + task.warmupMs;
      window.to = window.from + task.durationMs;
      go(now);
    } else if (message.type === 'stop') {
      window.to = Math.min(window.to, performance.now());
      ending.abort();
      cancel.abort();
      go(undefined);
    }
  });
  post(port, { type: 'ready', worker: task.worker });
  const origin = await begun;
  if (origin === undefined) return meter.report(task.worker, { cpuUserMs: 0, cpuSystemMs: 0, elu: 0, measuredMs: 0 });

  const base = { lockMs: task.lockMs, call: { signal: cancel.signal }, stopped, countAttempts: task.retryCount !== 0 };
  const context: CycleContext =
    { ...base, redlock, ...lockerFor(redlock, task.kind, task.permits), holdMs: task.holdMs, hold: () => task.holdMs };
  const parts = new Parts(task.mix?.length ?? 1, task.stages.length);
  const loop: Loop = {
    cycle, context, meter, window, keys: task.keys, prefix: task.prefix, worker: task.worker, workers: task.workers,
      signal: ending.signal, cancel: cancel.signal,
    stages: task.stages, ...(task.mix === undefined ? {} : { mix: new Mix(task.mix, redlock, base, task.prefix) }),
      ...(parts.needed ? { parts } : {}),
  };

  // CPU and event-loop use are taken over the measured window only.
  let cpuFrom: NodeJS.CpuUsage | undefined;
  let eluFrom: ReturnType<typeof performance.eventLoopUtilization> | undefined;
  const startMeasuring = setTimeout(() => {
    cpuFrom = process.cpuUsage();
    eluFrom = performance.eventLoopUtilization();
  }, task.warmupMs);
  const end = setTimeout(() => {
    ending.abort();
    // A closed loop's cycles still in flight cannot count any more; an open loop's were due in the window and do.
    if (task.rate === 0) cancel.abort();
  }, task.warmupMs + task.durationMs);
  let second = 0;
  const tick = (): void => {
    second++;
    const warmup = performance.now() < window.from;
    post(port, { type: 'tick', worker: task.worker, second, warmup, inUse: memoryInUse(), ...meter.takeInterval() });
  };
  const ticker = setInterval(tick, kTickMs);

  try {
    await drive(loop, task, origin);
  } finally {
    clearTimeout(startMeasuring);
    clearTimeout(end);
    clearInterval(ticker);
  }
  tick();
  const cpu = cpuFrom === undefined ? { user: 0, system: 0 } : process.cpuUsage(cpuFrom);
  const elu = eluFrom === undefined ? 0 : performance.eventLoopUtilization(eluFrom).utilization;
  const report = meter.report(task.worker, {
    cpuUserMs: cpu.user / 1000,
    cpuSystemMs: cpu.system / 1000,
    elu,
    measuredMs: Math.max(0, Math.min(window.to, performance.now()) - window.from),
  });
  return { ...report, ...parts.report() };
}

/** Runs the open or closed loop over the task's stages (one stage, no plan to follow, for a plain closed loop). */
function drive(loop: Loop, task: WorkerTask, origin: number): Promise<void> {
  const stages = task.stages;
  if (task.rate > 0) {
    const plan = new Plan(task.warmupMs, stages, 1 / 1000 / task.workers);
    return openLoop(loop, { plan, origin, offset: task.worker / task.workers, peak: task.rate });
  }
  const staged = stages.length > 1 || stages[0]!.ramp;
  return closedLoop(loop, task.concurrency, staged ? { plan: new Plan(task.warmupMs, stages), origin } : undefined);
}

/**
 * What this worker's objects use now: its V8 heap in use and the memory outside it they hold (Buffers). Under `node
 * --expose-gc` it collects first, so the figure is what is live, not what V8 chose to keep: a full collection each
 * second, which slows the load, so only the fault suite's stall scenario runs so, judging by it what the client
 * keeps while a master stalls (bench/faults/stall.ts) against the same run's fault-free seconds.
 */
function memoryInUse(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc === 'function') gc();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
}

function post(port: MessagePort, message: FromWorker): void {
  port.postMessage(message);
}
