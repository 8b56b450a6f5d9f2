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
 * Node's flags under callgrind. --single-threaded: V8 compiles and marks on the main thread, where
 * callgrind counts it at a point fixed by the program rather than by the scheduler. A fixed 64 MB
 * semi-space: scavenges at points fixed by what was allocated, not by V8's resizing heuristics.
 */
export const kNodeFlags = ['--single-threaded', '--min-semi-space-size=64', '--max-semi-space-size=64'];

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
 * to have optimised the cycle's code, so that the difference is the steady state's.
 */
export const kCycles: Readonly<Record<number, { readonly long: number; readonly short: number }>> = {
  1: { long: 3_000, short: 1_000 },
  64: { long: 12_800, short: 3_200 },
  512: { long: 20_480, short: 5_120 },
};

/**
 * Instructions of one step of bench/ci/cycles.js's planted work, optimised (measured: the
 * planted run's count less the clean run's, divided by the steps; docs/decisions/0011).
 */
export const kPlantStepInstructions = 6;

/** Instructions per cycle: (I(long) − I(short)) / (long − short); both runs at once when `together`. */
export async function instructionsPerCycle(options: CountOptions, together: boolean): Promise<number> {
  const { long, short } = kCycles[options.concurrency]!;
  const [big, small] = together
    ? await Promise.all([countRun(options, long), countRun(options, short)])
    : [await countRun(options, long), await countRun(options, short)];
  return (big - small) / (long - short);
}
