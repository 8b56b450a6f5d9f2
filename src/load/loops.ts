import { setImmediate as yieldToLoop, setTimeout as delay } from 'node:timers/promises';
import type { Cycle, CycleContext, Timings } from './cycle.js';
import type { Meter } from './meter.js';

/** The measured window on this thread's clock; `to` moves earlier on a stop. */
export interface Window {
  from: number;
  to: number;
  /** renew-hold: every hold counts, as each one spans the whole run. */
  readonly countAll: boolean;
  /**
   * Open loop: a cycle counts when it was due inside the window, however late it completes, so
   * the slowest are never the ones left out. Closed loop: when it started and ended inside it.
   */
  readonly byStart: boolean;
}

export interface Loop {
  readonly cycle: Cycle;
  readonly context: CycleContext;
  readonly meter: Meter;
  readonly window: Window;
  readonly keys: number;
  readonly prefix: string;
  /** This worker's index and how many there are (renew-hold's keys, below). */
  readonly worker: number;
  readonly workers: number;
  /** Aborts when the window ends: no cycle starts after it. */
  readonly signal: AbortSignal;
  /** Aborts cycles in flight (a stop; a closed loop's window end): what fails after it is not counted. */
  readonly cancel: AbortSignal;
}

/** Most cycles an open loop keeps in flight; past it, due cycles are skipped and counted. */
const kMaxBacklog = 100_000;
export const BACKLOG_CODE = 'ERR_LOAD_BACKLOG';

function counts(window: Window, start: number, end: number): boolean {
  return window.countAll || (start >= window.from && (window.byStart ? start < window.to : end <= window.to));
}

/**
 * The key of a cycle: uniform over the key space, except in renew-hold, where each slot holds one
 * lock for the whole run. There two slots drawing the same key meant one of them could never hold
 * its lock — a failure the load generator made (50,000 locks over 10,000,000 keys drew ~125 such
 * pairs, the birthday bound), not the library. So slot i of worker w takes key (i·W + w) mod K:
 * distinct while K covers every slot, and contended only when the user asks for fewer keys.
 */
export function pick(loop: Pick<Loop, 'window' | 'keys' | 'prefix' | 'worker' | 'workers'>, contender: number): string[] {
  if (loop.window.countAll && contender >= 0) return [loop.prefix + String((contender * loop.workers + loop.worker) % loop.keys)];
  return [loop.prefix + String(Math.floor(Math.random() * loop.keys))];
}

function timings(): Timings {
  return { acquireMs: 0, extendMs: -1, releaseMs: 0, attempts: 1 };
}

/** `contender`: the closed loop's slot running the cycle, −1 in an open loop (no fixed contenders). */
async function one(loop: Loop, start: number, out: Timings, contender: number): Promise<void> {
  try {
    await loop.cycle(loop.context, pick(loop, contender), start, out);
    const end = performance.now();
    loop.meter.done(out, end - start, counts(loop.window, start, end), contender);
  } catch (error) {
    // What fails once a closed loop's window ended is cut short by the end, not a failure of its
    // own; renew-hold's holds span the whole run, so one that failed or never completed counts.
    if (!loop.cancel.aborted || loop.window.countAll) loop.meter.failed(error, counts(loop.window, start, performance.now()));
    // A failure can come back without any I/O (every master down, no retries): without a turn
    // of the event loop here, a closed loop would starve the timers that end the run.
    await yieldToLoop();
  }
}

/**
 * `concurrency` cycles in flight, each slot starting its next cycle when the last one ends; each slot
 * is one contender for the lock, whose acquisitions the meter counts for fairness.
 */
export async function closedLoop(loop: Loop, concurrency: number): Promise<void> {
  const slot = async (contender: number): Promise<void> => {
    const out = timings();
    while (!loop.signal.aborted) await one(loop, performance.now(), out, contender);
  };
  await Promise.all(Array.from({ length: concurrency }, (_, contender) => slot(contender)));
}

/**
 * Cycles started on a fixed schedule of `rate` per second from `origin`, whatever is in flight;
 * each cycle's latency runs from its intended start, so a stall shows in full (no coordinated omission).
 */
export async function openLoop(loop: Loop, rate: number, origin: number): Promise<void> {
  const interval = 1000 / rate;
  const inflight = new Set<Promise<void>>();
  for (let i = 0; !loop.signal.aborted;) {
    const now = performance.now();
    let due = origin + i * interval;
    while (due <= now) {
      if (inflight.size >= kMaxBacklog) {
        if (counts(loop.window, due, due)) loop.meter.count(BACKLOG_CODE);
      } else {
        const running: Promise<void> = one(loop, due, timings(), -1).finally(() => inflight.delete(running));
        inflight.add(running);
      }
      due = origin + ++i * interval;
    }
    try {
      await delay(due - performance.now(), undefined, { signal: loop.signal });
    } catch {
      // aborted: the run is over
    }
  }
  await Promise.all(inflight);
}
