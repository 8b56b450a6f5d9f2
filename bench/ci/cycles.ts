/**
 * A fixed number of acquire → release cycles at a fixed concurrency, then a full drain (the
 * contender's `drain`): every command of those cycles has been executed and answered when it
 * returns, so the masters' counters read before and after hold exactly their work, and the CPU
 * measured includes the reading of every reply, none of which is left to the next run. Keys are
 * `ci:<n>` for n = 0…cycles−1: the same bytes on every run, and no two cycles of one run ever
 * collide on a key (no refusals, no retries).
 */
import { GCProfiler } from 'node:v8';
import { REFUSED, type DrainableContender } from '../peers/contender.js';

export interface CyclesResult {
  readonly cycles: number;
  readonly ms: number;
  /** process.cpuUsage() user + system over the run, µs: every thread of this process, GC included. */
  readonly cpuUs: number;
  /** Bytes the JavaScript heap allocated during the run (see allocated()); NaN unless asked for. */
  readonly allocatedBytes: number;
}

/**
 * Heap growth plus what every collection freed: everything allocated, whether or not it survived.
 * V8 keeps no running total of allocations, so GCProfiler's before/after sizes reconstruct it.
 */
function allocated(profile: ReturnType<GCProfiler['stop']>, usedBefore: number, usedAfter: number): number {
  let freed = 0;
  for (const gc of profile.statistics) freed += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize;
  return usedAfter - usedBefore + freed;
}

export async function runCycles(contender: DrainableContender, concurrency: number, cycles: number, options: { allocations?: boolean } = {}): Promise<CyclesResult> {
  let next = 0;
  let refused = 0;
  const loop = async (): Promise<void> => {
    while (next < cycles) {
      const lock = await contender.acquire(`ci:${next++}`);
      if (lock === REFUSED) refused++;
      else await contender.release(lock);
    }
  };
  const profiler = options.allocations === true ? new GCProfiler() : undefined;
  const usedBefore = profiler === undefined ? 0 : process.memoryUsage().heapUsed;
  profiler?.start();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, loop));
  // Without it a master running behind (the quorum does not wait for the slowest two) was seen
  // with dozens of batches not yet executed when its counters were read.
  await contender.drain();
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const allocatedBytes = profiler === undefined ? NaN : allocated(profiler.stop(), usedBefore, process.memoryUsage().heapUsed);
  // Unique keys, released before the run ends: a refusal means a lock leaked or a master misbehaved.
  if (refused > 0) throw new Error(`${refused} of ${cycles} acquisitions refused on keys nobody else holds`);
  return { cycles, ms, cpuUs: cpu.user + cpu.system, allocatedBytes };
}
