/**
 * Client instructions per acquire → release cycle, counted by valgrind's callgrind over the client
 * process alone (the masters run outside it): a run of `long` cycles less a run of `short` ones,
 * divided by the difference, so that start-up, module loading and the JIT's first compilations
 * cancel (docs/decisions/0011-instruction-gate.md). A count of instructions does not depend on the
 * CPU model or on the machine's neighbours, where CPU time does.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../lib/host.js';

export interface CountOptions {
  /** The valgrind binary (scripts/ensure-valgrind.sh; PIPELOCK_VALGRIND). */
  readonly valgrind: string;
  /** Masters' URLs, comma-separated. */
  readonly urls: string;
  readonly concurrency: number;
  /** Steps of planted work per cycle (bench/ci/cycles.js); 0 for the real client. */
  readonly plant: number;
}

/**
 * Node's flags under callgrind: the count is the client's own work, without the collector, whose share
 * moved from run to run with what was live when it ran (docs/decisions/0011). --single-threaded: V8
 * compiles on the main thread, where callgrind counts it at a point fixed by the program. A 256 MB
 * semi-space and a 1 GB old generation: no c64 or c512 run collects at all, a c1 run scavenges once
 * (mark-compacts had cost ~100 M instructions in one run in two at c64, and scavenges 2 % at c512 by
 * where they fell in a wave). --no-memory-reducer: no collection timed by the clock.
 * (--predictable-gc-schedule, used before, pins the semi-space to 4 MB whatever the flags say.)
 */
export const kNodeFlags = ['--single-threaded', '--no-memory-reducer', '--min-semi-space-size=256', '--max-semi-space-size=256',
  '--initial-old-space-size=1024'];

/** Instructions callgrind counted over one run of `cycles` cycles. */
export function countRun(options: CountOptions, cycles: number): Promise<number> {
  const args = ['--tool=callgrind', '--callgrind-out-file=/dev/null', process.execPath, ...kNodeFlags, join(ROOT, 'bench', 'ci', 'cycles.js'),
    String(options.concurrency), String(cycles), options.urls, String(options.plant)];
  return new Promise((resolve, reject) => {
    const child = spawn(options.valgrind, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stdout.resume();
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.once('error', reject);
    child.once('close', (code) => {
      const collected = /Collected : (\d+)/.exec(stderr)?.[1];
      if (code === 0 && collected !== undefined) resolve(Number(collected));
      else reject(new Error(`callgrind c${options.concurrency} ${cycles} cycles exited with code ${String(code)}:\n${stderr.slice(-2000)}`));
    });
  });
}

/**
 * Cycles of the long and the short run per concurrency. The short run is long enough for the JIT
 * to have optimised the cycle's code, so that the difference is the steady state's; the difference
 * is wide enough that start-up's own variation (tens of millions of instructions) moves the figure
 * by a few thousand at most: c1 at 3,000 − 1,000 read 270k to 408k (docs/decisions/0011).
 */
export const kCycles: Readonly<Record<number, { readonly long: number; readonly short: number }>> = {
  1: { long: 8_000, short: 2_000 },
  64: { long: 12_800, short: 3_200 },
  512: { long: 20_480, short: 5_120 },
};

/**
 * Instructions of one step of bench/ci/cycles.js's planted work, measured as the planted run's
 * count less the baseline's, divided by the steps: 11.5 at c64 and 11.4 at c512 since the cycles go
 * in waves (a wave's plants run back to back), 21.5 and 19.7 before (docs/decisions/0011).
 */
export const kPlantStepInstructions = 11.5;

/**
 * Instructions per cycle: (I(long) − I(short)) / (long − short). The two runs go one after the
 * other: run at once, they took turns on the cores with each other and the masters, and how
 * replies grouped into reads moved c64's figure by 30 % (docs/decisions/0011).
 */
export async function instructionsPerCycle(options: CountOptions): Promise<number> {
  const { long, short } = kCycles[options.concurrency]!;
  const big = await countRun(options, long);
  const small = await countRun(options, short);
  return (big - small) / (long - short);
}
