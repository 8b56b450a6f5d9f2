/**
 * The two measurements behind `npm run bench:ci`.
 *
 * counters: pipelock alone, a fixed number of cycles, the masters' own counters read before and
 *   after. Script calls and bytes per cycle follow from the keys, the tokens and how operations
 *   are gathered into calls, not from the machine's speed: lose the coalescing and they jump.
 * cpu: client CPU per cycle of pipelock and of the per-command quorum ceiling, in alternating
 *   waves (one wave = `concurrency` cycles, a few ms) so that both see the same neighbours, the
 *   same CPU frequency and the same steal; the figure is the median of the per-wave ratios.
 */
import type { DrainableContender } from '../peers/contender.js';
import { subtract, type CounterReader, type MasterCounters } from './counters.js';
import { runCycles } from './cycles.js';
import { quantile } from '../lib/stats.js';

export interface CounterFigures {
  readonly cycles: number;
  /**
   * EVALSHA/EVAL per cycle, averaged over the masters. Without coalescing it is 1: every release is
   * a script call of its own (and every acquisition a SET NX, which is not counted here).
   */
  readonly scriptCallsPerCycle: number;
  /** Bytes all masters together received per cycle. */
  readonly bytesPerCycle: number;
  /** JavaScript heap bytes allocated per cycle in the client. */
  readonly allocatedBytesPerCycle: number;
  /** Information only: commands per cycle over all masters, script-run commands included. */
  readonly commandsPerCycle: number;
  /** Information only: the masters' CPU per cycle, summed, µs. */
  readonly redisCpuUsPerCycle: number;
  readonly cyclesPerSec: number;
}

function total(deltas: readonly MasterCounters[], field: keyof MasterCounters): number {
  return deltas.reduce((sum, delta) => sum + delta[field], 0);
}

export async function measureCounters(contender: DrainableContender, reader: CounterReader, concurrency: number, cycles: number): Promise<CounterFigures> {
  const before = await reader.read();
  const run = await runCycles(contender, concurrency, cycles, { allocations: true });
  const after = await reader.read();
  const deltas = after.map((counters, i) => subtract(counters, before[i]!));
  return {
    cycles,
    scriptCallsPerCycle: total(deltas, 'scriptCalls') / deltas.length / cycles,
    bytesPerCycle: total(deltas, 'inputBytes') / cycles,
    allocatedBytesPerCycle: run.allocatedBytes / cycles,
    commandsPerCycle: total(deltas, 'commands') / cycles,
    redisCpuUsPerCycle: total(deltas, 'cpuUs') / cycles,
    cyclesPerSec: (cycles / run.ms) * 1000,
  };
}

export interface CpuFigures {
  readonly waves: number;
  /** The median over waves of pipelock's CPU for its wave ÷ the ceiling's for the wave after it. */
  readonly ratio: number;
  /** The first and third quartiles of those per-wave ratios: their spread within this run. */
  readonly ratioQ1: number;
  readonly ratioQ3: number;
  /** Information only: client CPU per cycle, µs, over all waves. */
  readonly pipelockUs: number;
  readonly ceilingUs: number;
  /** Information only: cycles/s over the same waves (each wave ramps up and drains). */
  readonly pipelockCyclesPerSec: number;
  readonly ceilingCyclesPerSec: number;
}

/**
 * A scavenge before every wave, outside the measured span, and a young generation larger than a
 * wave allocates (bench/ci.ts sets both): no collection ever lands inside a wave. Where one did,
 * it cost a few ms in whichever wave it hit and made the per-wave ratios bimodal. What the
 * collector costs follows from what is allocated, which allocatedBytesPerCycle gates.
 */
function minorGc(): void {
  const gc = (globalThis as { gc?: (options: { type: 'minor' }) => void }).gc;
  if (gc === undefined) throw new Error('bench:ci needs node --expose-gc');
  gc({ type: 'minor' });
}

/**
 * `waves` waves of each, alternating, pipelock first. The median of per-wave ratios rather than the
 * ratio of sums: a wave that a neighbour's burst lands on moves a sum, not a median.
 */
export async function measureCpu(pipelock: DrainableContender, ceiling: DrainableContender, concurrency: number, waves: number, waveCycles = concurrency): Promise<CpuFigures> {
  const ratios: number[] = [];
  const sums = { pipelock: { cpuUs: 0, ms: 0 }, ceiling: { cpuUs: 0, ms: 0 } };
  for (let wave = 0; wave < waves; wave++) {
    minorGc();
    const a = await runCycles(pipelock, concurrency, waveCycles);
    minorGc();
    const b = await runCycles(ceiling, concurrency, waveCycles);
    ratios.push(a.cpuUs / b.cpuUs);
    sums.pipelock.cpuUs += a.cpuUs;
    sums.pipelock.ms += a.ms;
    sums.ceiling.cpuUs += b.cpuUs;
    sums.ceiling.ms += b.ms;
  }
  const cycles = waves * waveCycles;
  return {
    waves,
    ratio: quantile(ratios, 0.5),
    ratioQ1: quantile(ratios, 0.25),
    ratioQ3: quantile(ratios, 0.75),
    pipelockUs: sums.pipelock.cpuUs / cycles,
    ceilingUs: sums.ceiling.cpuUs / cycles,
    pipelockCyclesPerSec: (cycles / sums.pipelock.ms) * 1000,
    ceilingCyclesPerSec: (cycles / sums.ceiling.ms) * 1000,
  };
}

/** What one cycle of a lock taken alone costs in calls and scheduled callbacks: fixed by the code, not the machine. */
export interface AloneFigures {
  /** Calls pipelock handed its clients per cycle, over all masters (SET NX and script calls): 2 per master at best. */
  readonly callsPerCycle: number;
  /**
   * Timers armed (setTimeout) and microtasks queued (queueMicrotask) per cycle in the client, its
   * client library's included: 2 at best, one flush per operation. setImmediate is left out:
   * @redis/client schedules one per write, and how many writes share one moves with the masters'
   * timing on a loaded machine, as does a flush deferred past replies still out.
   */
  readonly scheduledPerCycle: number;
  /** Information only: setImmediate per cycle. */
  readonly immediatesPerCycle: number;
}

type Scheduler = 'setTimeout' | 'setImmediate' | 'queueMicrotask';

/**
 * Cycles at concurrency 1 with the process's schedulers and the clients' `sendCommand` (a lean connection's `post`) counted.
 * The counters wrap the globals for the run only; the timings of this run are not used.
 */
export async function measureAlone(contender: DrainableContender, clients: readonly { sendCommand: (...args: never[]) => unknown }[], cycles: number): Promise<AloneFigures> {
  const counts = { scheduled: 0, immediates: 0, calls: 0 };
  const globals = globalThis as unknown as Record<Scheduler, (...args: unknown[]) => unknown>;
  const originals = (['setTimeout', 'setImmediate', 'queueMicrotask'] as const).map((name) => [name, globals[name]] as const);
  // A lean connection's sendCommand goes through its post: only post is counted there.
  const sends = clients.filter((client) => typeof (client as { post?: unknown }).post !== 'function').map((client) => [client, client.sendCommand] as const);
  for (const [name, original] of originals) {
    globals[name] = (...args: unknown[]) => {
      if (name === 'setImmediate') counts.immediates++;
      else counts.scheduled++;
      return original(...args);
    };
  }
  // A lean connection (pipelock's own, the default for URLs) takes the engine's calls through post(), not sendCommand().
  const posts = clients.flatMap((client) => {
    const post = (client as { post?: unknown }).post;
    return typeof post === 'function' ? [[client, post] as const] : [];
  });
  for (const [client, send] of sends) {
    (client as { sendCommand: (...args: unknown[]) => unknown }).sendCommand = function (this: unknown, ...args: unknown[]) {
      counts.calls++;
      return (send as (...a: unknown[]) => unknown).apply(this, args);
    };
  }
  for (const [client, post] of posts) {
    (client as unknown as { post: (...args: unknown[]) => unknown }).post = function (this: unknown, ...args: unknown[]) {
      counts.calls++;
      return (post as (...a: unknown[]) => unknown).apply(this, args);
    };
  }
  try {
    await runCycles(contender, 1, cycles);
  } finally {
    for (const [name, original] of originals) globals[name] = original;
    for (const [client, send] of sends) (client as { sendCommand: unknown }).sendCommand = send;
    for (const [client] of posts) delete (client as { post?: unknown }).post;
  }
  // The drain's PINGs (one per master) are not the cycles'.
  return { callsPerCycle: (counts.calls - clients.length) / cycles, scheduledPerCycle: counts.scheduled / cycles, immediatesPerCycle: counts.immediates / cycles };
}
