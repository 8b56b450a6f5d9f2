import { setImmediate as yieldToLoop, setTimeout as delay } from 'node:timers/promises';
import type { Cycle, CycleContext, Timings } from './cycle.js';
import type { Meter } from './meter.js';
import type { Mix } from './mix.js';
import type { Parts } from './parts.js';
import type { Stage } from './scenario.js';
import { stageAt, type Plan } from './schedule.js';

/** The measured window on this thread's clock; `to` moves earlier on a stop. */
export interface Window {
  from: number;
  to: number;
  /** renew-hold: every hold counts, as each one spans the whole run. */
  readonly countAll: boolean;
  /**
   * Open loop: a cycle counts when it completes inside the window, whenever it was due, timed
   * from when it was due; one due inside the window that has not completed by its end is counted
   * as late, so the slowest are never silently left out. Closed loop: when it started and ended inside it.
   */
  readonly byEnd: boolean;
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
  /** A scenario's mix: each cycle draws its entry (cycle, context and keys); absent: `cycle` over uniform keys. */
  readonly mix?: Mix;
  /** A scenario's stages, for splitting the counted cycles (parts) by stage. */
  readonly stages: readonly Stage[];
  /** Counted cycles by mix entry and by stage, when there is more than one of either. */
  readonly parts?: Parts;
}

/**
 * Cycles an open loop keeps in flight per worker besides those its holds occupy (rate × hold):
 * one initial admission window's worth (src/admission/window.ts). Past capacity the loop used to start every
 * due cycle, up to 100,000 in flight per worker, and garbage collection of those cycles' frames
 * took a third of the workers' CPU; completed cycles/s fell to a half, then a tenth, of what a
 * closed loop made. With 64, 256 and 1,024 in flight per worker at twice capacity, 256 did
 * as well as 64 or a little better, and 1,024 ran into timeouts (the workers' loops 95% busy).
 */
export const kOpenInFlight = 256;

/**
 * A cycle the open loop starts more than this behind its schedule is a late start: past timer
 * jitter (a busy event loop fires a timer a few ms late), it waited because the generator had no
 * room for it (kOpenInFlight) or no CPU, which is what k6 counts as dropped_iterations.
 */
export const kLateStartMs = 10;

function counts(window: Window, start: number, end: number): boolean {
  return window.countAll || ((window.byEnd ? end >= window.from : start >= window.from) && end <= window.to);
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
  const mix = loop.mix;
  const e = mix === undefined ? 0 : mix.choose();
  const entry = mix?.entries[e];
  try {
    if (entry === undefined) await loop.cycle(loop.context, pick(loop, contender), start, out);
    else await entry.cycle(entry.context, [entry.prefix + String(entry.key())], start, out);
    const end = performance.now();
    const counted = settled(loop, start, end);
    loop.meter.done(out, end - start, counted, contender);
    if (counted) loop.parts?.done(e, stageAt(loop.stages, start - loop.window.from), out, end - start);
  } catch (error) {
    // What fails once a closed loop's window ended is cut short by the end, not a failure of its
    // own; renew-hold's holds span the whole run, so one that failed or never completed counts.
    const counted = settled(loop, start, performance.now());
    if (!loop.cancel.aborted || loop.window.countAll) {
      loop.meter.failed(error, counted);
      if (counted) loop.parts?.failed(e, stageAt(loop.stages, start - loop.window.from), error);
    }
    // A failure can come back without any I/O (every master down, no retries): without a turn
    // of the event loop here, a closed loop would starve the timers that end the run.
    await yieldToLoop();
  }
}

/** Whether a cycle that ran from `start` to `end` counts; in an open loop, one due in the window that ended after it is late. */
function settled(loop: Loop, start: number, end: number): boolean {
  const window = loop.window;
  if (counts(window, start, end)) return true;
  if (window.byEnd && start >= window.from && start < window.to) loop.meter.late(1);
  return false;
}

/**
 * `concurrency` cycles in flight, each slot starting its next cycle when the last one ends; each slot
 * is one contender for the lock, whose acquisitions the meter counts for fairness.
 */
export async function closedLoop(loop: Loop, concurrency: number, plan?: { readonly plan: Plan; readonly origin: number }): Promise<void> {
  const slot = async (contender: number): Promise<void> => {
    const out = timings();
    while (!loop.signal.aborted) {
      // Staged: slot i runs while the stage's target allows more than i in flight, and waits its turn otherwise.
      if (plan !== undefined && contender >= Math.round(plan.plan.valueAt(performance.now() - plan.origin))) {
        await delay(kIdleSlotMs, undefined, { signal: loop.signal }).catch(() => undefined);
        continue;
      }
      await one(loop, performance.now(), out, contender);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, contender) => slot(contender)));
}

/** An open loop's schedule: the plan (rates per ms, this worker's share), when it began, and this worker's place in it. */
export interface OpenSchedule {
  readonly plan: Plan;
  readonly origin: number;
  /** This worker's cycles sit at count positions i + offset (worker ÷ workers), so that workers interleave. */
  readonly offset: number;
  /** This worker's highest rate, cycles/s: its room for cycles in flight is sized by it. */
  readonly peak: number;
}

/** A closed-loop slot above its stage's target checks again this often (and an open loop at a rate of 0 ten times slower). */
const kIdleSlotMs = 10;

/**
 * Cycles due on the plan's schedule (a fixed `rate` per second for the flags, stages for a
 * scenario) from `origin`, each timed from when it was due. At most kOpenInFlight (+ rate × hold) run at once;
 * a due cycle past that waits its turn in
 * the generator — only a count, as cycle i is due at origin + i / rate — and starts when a cycle
 * ends, its latency still counted from when it was due: the wait shows in full, which is what
 * correcting for coordinated omission means (Gil Tene, "How NOT to Measure Latency"; wrk2 and
 * HdrHistogram's recordValueWithExpectedInterval correct the same way). So past capacity the
 * generator offers the library what it can admit and a backlog that grows in the latencies,
 * instead of a heap of waiting calls; what was due inside the window and never ran is late.
 */
export async function openLoop(loop: Loop, schedule: OpenSchedule): Promise<void> {
  const { plan, origin, offset } = schedule;
  const window = loop.window;
  const cap = kOpenInFlight + Math.ceil((schedule.peak * (loop.mix?.meanHold() ?? loop.context.holdMs)) / 1000);
  const dueAt = (i: number): number => origin + plan.dueAt(i + offset);
  let next = 0;
  let inflight = 0;
  let drained: (() => void) | undefined;
  const run = async (due: number): Promise<void> => {
    if (due >= window.from && due < window.to) loop.meter.started(performance.now() - due > kLateStartMs);
    await one(loop, due, timings(), -1);
    inflight--;
    startDue();
    if (inflight === 0) drained?.();
  };
  const startDue = (): void => {
    if (loop.signal.aborted) return;
    const now = performance.now();
    for (let due = dueAt(next); due <= now && inflight < cap; due = dueAt(next)) {
      next++;
      inflight++;
      void run(due);
    }
  };
  while (!loop.signal.aborted) {
    startDue();
    // Behind schedule, the ends of cycles start the cycles due; this only keeps to the schedule.
    try {
      await delay(Math.min(kIdleSlotMs * 100, Math.max(1, dueAt(next) - performance.now())), undefined, { signal: loop.signal });
    } catch {
      // aborted: the run is over
    }
  }
  // Cycle i is due inside the window for i in [ceil(N(from) − offset), ceil(N(to) − offset)), N the plan's count of cycles due.
  const firstDue = Math.ceil(plan.countTo(window.from - origin) - offset);
  const first = Math.max(next, firstDue);
  const end = Math.ceil(plan.countTo(window.to - origin) - offset);
  if (end > first) loop.meter.late(end - first);
  loop.meter.scheduled(Math.max(0, end - firstDue));
  if (inflight > 0) await new Promise<void>((resolve) => (drained = resolve));
}
