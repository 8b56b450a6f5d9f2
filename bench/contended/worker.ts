/**
 * One worker thread of the contended benchmark: its own lock client and connections (like one app
 * process), running `perThread` contenders that loop acquire → hold → release on the one hot key.
 * Started by bench/contended/run.ts; talks to it by messages and a SharedArrayBuffer.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { setImmediate as yieldToLoop, setTimeout as sleep } from 'node:timers/promises';
import { encode, Recorder } from '../../tools/src/load/histogram.js';
import { openWaiter, type Waiter } from './contenders.js';
import { HOLDERS, STOP, type FromWorker, type ThreadReport, type ToWorker, type WorkerInput } from './protocol.js';

function codeOf(error: unknown): string {
  const e = error as { code?: unknown; name?: unknown } | null | undefined;
  if (typeof e?.code === 'string') return e.code;
  if (typeof e?.name === 'string') return e.name;
  return 'non-error';
}

function bump(counts: Record<string, number>, code: string): void {
  counts[code] = (counts[code] ?? 0) + 1;
}

const input = workerData as WorkerInput;
const port = parentPort!;
const cells = new Int32Array(input.shared);
const stopped = (): boolean => Atomics.load(cells, STOP) !== 0;

const recorder = new Recorder();
const counts = new Array<number>(input.perThread).fill(0);
/** performance.now() when each contender's current acquire() began; NaN when not waiting. */
const waitingSince = new Array<number>(input.perThread).fill(NaN);
const failures: Record<string, number> = {};
const releaseFailures: Record<string, number> = {};
let violations = 0;

async function contend(waiter: Waiter, i: number): Promise<void> {
  while (!stopped()) {
    const t0 = performance.now();
    waitingSince[i] = t0;
    let held: unknown;
    try {
      held = await waiter.acquire(input.key, input.ttlMs);
    } catch (error) {
      waitingSince[i] = NaN;
      if (!stopped()) bump(failures, codeOf(error));
      // A library that rejects at once would otherwise spin without ever yielding to the event loop.
      await yieldToLoop();
      continue;
    }
    const wait = performance.now() - t0;
    waitingSince[i] = NaN;
    // The checker the library cannot see: the lock is ours only if nobody else's add is outstanding.
    if (Atomics.add(cells, HOLDERS, 1) !== 0) violations++;
    // Read after the acquisition completed: one that completes after the stop is not in the window.
    if (!stopped()) {
      recorder.recordMs(wait);
      counts[i]!++;
    }
    if (input.holdMs > 0) await sleep(input.holdMs);
    Atomics.sub(cells, HOLDERS, 1);
    try {
      await waiter.release(held);
    } catch (error) {
      bump(releaseFailures, codeOf(error));
    }
  }
}

/**
 * The window's figures, sent at the stop. The contenders are not drained: one still in acquire()
 * may wait out its whole retry schedule (node-redlock: up to 15 s), and run.ts terminates the thread.
 */
function report(): ThreadReport {
  const now = performance.now();
  let unfinished = 0;
  let unfinishedMaxMs = 0;
  for (const since of waitingSince) {
    if (Number.isNaN(since)) continue;
    unfinished++;
    unfinishedMaxMs = Math.max(unfinishedMaxMs, now - since);
  }
  return { counts, histogram: encode(recorder.histogram), clamped: recorder.clamped, failures, releaseFailures, violations, unfinished, unfinishedMaxMs };
}

try {
  const waiter = await openWaiter(input.contender, input.urls);
  port.on('message', (message: ToWorker) => {
    if (message.type === 'go') {
      for (let i = 0; i < input.perThread; i++) {
        contend(waiter, i).catch((error: unknown) => {
          port.postMessage({ type: 'error', message: `contender ${i}: ${String(error)}` } satisfies FromWorker);
        });
      }
    } else {
      port.postMessage({ type: 'report', report: report() } satisfies FromWorker);
    }
  });
  port.postMessage({ type: 'ready' } satisfies FromWorker);
} catch (error) {
  port.postMessage({ type: 'error', message: `${codeOf(error)}: ${(error as Error).message}` } satisfies FromWorker);
}
