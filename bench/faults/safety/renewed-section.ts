import { setTimeout as delay } from 'node:timers/promises';
import { Redlock, type Lock, type RedlockAbortSignal } from '../../../src/index.js';
import { release, type CycleContext, type CustomCycleFactory, type Timings } from '../../../tools/src/load/cycle.js';
import { attemptsOf } from '../../../tools/src/load/meter.js';
import { enterSection, openSafety, type Safety, type SafetyData } from './critical-section.js';

/** What the worker-renewal scenario hands each load worker: the safety data, and the masters to open a Redlock of its own on. */
export interface RenewedData extends SafetyData {
  readonly urls: readonly string[];
  readonly heartbeatBound: number;
}

/**
 * The load worker's entry for the worker-renewal scenario (issue 44): its own Redlock with
 * `renewal: 'worker'` (the load's Redlock renews on its own thread), sections longer than the lock
 * duration, so that only renewals keep them, and the ledger's stalls block this thread's loop.
 */
const factory: CustomCycleFactory = async (data, { index, prefix }) => {
  const { urls, heartbeatBound, ...safetyData } = data as RenewedData;
  const safety = await openSafety(safetyData, index, prefix);
  const redlock = new Redlock([...urls], { renewal: 'worker', heartbeatBound, retryCount: 2, retryDelay: 30, retryJitter: 20 });
  await redlock.ready();
  return {
    cycle: (context, resources, start, out) => renewedSection(safety, redlock, context, resources, start, out),
    close: async () => {
      safety.log.close();
      await redlock.quit();
    },
  };
};
export default factory;

/**
 * A fenced section held past its lock's duration with autoExtend: entry (where a stall blocks the
 * whole thread), a write, the hold, the commit. Each write is made only while the lock's signal
 * reads held, and the ledger's validity end moves to what the lock then reports (the worker's
 * renewals, read from its cell): a holder that acts on a lock the worker did not keep shows as an
 * overlap. A lost lock is recorded (ledger `lost`) and its error is the cycle's.
 */
async function renewedSection(safety: Safety, redlock: Redlock, context: CycleContext, resources: readonly string[], start: number, out: Timings): Promise<void> {
  const { ledger } = safety;
  let lock: Lock;
  try {
    lock = await redlock.acquire(resources, context.lockMs, { ...context.call, fencing: true, autoExtend: true });
  } catch (error) {
    ledger.countAttempts(attemptsOf(error));
    throw error;
  }
  const acquired = performance.now();
  const signal: RedlockAbortSignal = lock.signal!;
  const { row, resource, entry } = enterSection(safety, resources, lock);
  const held = (): boolean => {
    if (signal.aborted) return false;
    ledger.extend(row, lock.validity);
    return true;
  };
  try {
    if (!held()) throw signal.reason;
    ledger.wrote(row, await safety.log.write(resource, lock.fence!, entry));
    if (context.holdMs > 0) await delay(context.holdMs);
    if (!held()) throw signal.reason;
    ledger.committed(row, await safety.log.write(resource, lock.fence!, entry));
  } catch (error) {
    if (signal.aborted) ledger.lost(row);
    ledger.exit(row);
    await lock.release().catch(() => undefined); // lost: nothing of it is left to release
    throw error;
  }
  ledger.exit(row);
  out.acquireMs = acquired - start;
  out.extendMs = -1;
  out.attempts = lock.attempts.length;
  await release(lock, out);
}
