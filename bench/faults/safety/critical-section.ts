import { setTimeout as delay } from 'node:timers/promises';
import type { Lock } from '../../../src/index.js';
import { release, type CycleContext, type CustomCycleFactory, type Timings } from '../../../tools/src/load/cycle.js';
import { attemptsOf } from '../../../tools/src/load/meter.js';
import { FencedLog } from './fenced-log.js';
import { Ledger } from './ledger.js';

/** What the fault benchmark hands each load worker (CustomTask data). */
export interface SafetyData {
  readonly ledger: SharedArrayBuffer;
  readonly logUrl: string;
}

/** A worker's share of a safety run. */
export interface Safety {
  readonly ledger: Ledger;
  readonly log: FencedLog;
  readonly worker: number;
  readonly prefix: string;
}

/** The load worker's entry: every cycle of a safety run is a critical section (see below). */
const factory: CustomCycleFactory = async (data, { index, prefix }) => {
  const safety = await openSafety(data, index, prefix);
  const { log } = safety;
  return {
    cycle: (context, resources, start, out) => criticalSection(safety, context, resources, start, out),
    close: () => {
      log.close();
    },
  };
};
export default factory;

/** A worker's share of a safety run from the CustomTask data: the shared ledger and a fenced-log connection. */
export async function openSafety(data: unknown, worker: number, prefix: string): Promise<Safety> {
  const { ledger, logUrl } = data as SafetyData;
  return { ledger: new Ledger(ledger), log: await FencedLog.connect(logUrl), worker, prefix };
}

/**
 * Records a holder's entry in the ledger and, when a stall is pending, takes it: the whole thread
 * blocks (a stop-the-world GC pause), so its writes arrive late. Returns its ledger row, the
 * resource's number and what it writes to the fenced log.
 */
export function enterSection(safety: Safety, resources: readonly string[], held: { readonly validity: number; readonly fence?: number | undefined; readonly attempts: readonly unknown[] }): { row: number; resource: number; entry: string } {
  const { ledger } = safety;
  const resource = Number(resources[0]!.slice(safety.prefix.length));
  const row = ledger.enter(resource, safety.worker, held.validity, held.fence!);
  ledger.countAttempts(held.attempts.length);
  const stallMs = ledger.takeStall();
  if (stallMs > 0) {
    ledger.stalled(row, stallMs);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, stallMs);
  }
  return { row, resource, entry: `${safety.worker}:${row}` };
}

/**
 * critical-section: acquire with a fencing token, record the entry in the shared ledger, write to
 * the fenced log, hold, write again (the commit), record the exit, release. Two writes, as a real
 * section reads-then-writes: a holder overlapped by a newer one then commits after the newer one's
 * first write, and the log must reject it. When a stall is pending, this holder takes it and
 * blocks its whole thread first (a stop-the-world GC pause): its write then arrives late.
 */
export async function criticalSection(safety: Safety, context: CycleContext, resources: readonly string[], start: number, out: Timings): Promise<void> {
  const { ledger } = safety;
  let lock: Lock;
  try {
    lock = await context.redlock.acquire(resources, context.lockMs, { ...context.call, fencing: true });
  } catch (error) {
    ledger.countAttempts(attemptsOf(error));
    throw error;
  }
  const acquired = performance.now();
  const { row, resource, entry } = enterSection(safety, resources, lock);
  ledger.wrote(row, await safety.log.write(resource, lock.fence!, entry));
  if (context.holdMs > 0) await delay(context.holdMs);
  ledger.committed(row, await safety.log.write(resource, lock.fence!, entry));
  ledger.exit(row);
  out.acquireMs = acquired - start;
  out.extendMs = -1;
  out.attempts = lock.attempts.length;
  await release(lock, out);
}
