/**
 * Client instructions per acquire → release cycle, counted by valgrind's callgrind over the client
 * process alone (the masters run outside it): warm-up cycles, then the counters zeroed, then the
 * counted cycles, one concurrency after another in one process, so that start-up, module loading and
 * the JIT's first compilations are never in a count (docs/decisions/0011-instruction-gate.md). A count of
 * instructions does not depend on the CPU model or on the machine's neighbours, where CPU time does.
 */
import { execFile, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { ROOT } from '../lib/host.js';

const execFileAsync = promisify(execFile);

export interface CountOptions {
  /** The valgrind binary (scripts/ensure-valgrind.sh; PIPELOCK_VALGRIND). */
  readonly valgrind: string;
  /** Masters' URLs, comma-separated. */
  readonly urls: string;
}

/** One concurrency's count. */
export interface Count {
  readonly concurrency: number;
  /** Steps of planted work per cycle (bench/ci/cycles.js); 0 for the real client. */
  readonly plant: number;
}

/**
 * Node's flags under callgrind: the count is the client's own work, without the collector, whose share
 * moved from run to run with what was live when it ran (docs/decisions/0011). --single-threaded: V8
 * compiles on the main thread, where callgrind counts it at a point fixed by the program. A 256 MB
 * semi-space and a 1 GB old generation: no mark-compact in a run (they had cost ~100 M instructions in
 * one run in two at c64). --expose-gc: the process scavenges before each count (bench/ci/cycles.js), so
 * that none falls inside one; the three concurrencies' allocations together fill the semi-space, and a
 * scavenge inside c64's count had added ~10k instructions per cycle, one inside c1's (in some runs) as
 * much. A full collection there instead added 37 % at c64. --no-memory-reducer: no collection timed by
 * the clock. (--predictable-gc-schedule, used before, pins the semi-space to 4 MB whatever the flags say.)
 */
export const kNodeFlags = ['--expose-gc', '--single-threaded', '--no-memory-reducer', '--min-semi-space-size=256', '--max-semi-space-size=256',
  '--initial-old-space-size=1024'];

/** `callgrind_control` beside the valgrind binary in use (Debian ships them together), or on the PATH. */
function controlOf(valgrind: string): string {
  return valgrind.includes('/') ? join(dirname(valgrind), 'callgrind_control') : 'callgrind_control';
}

/** Runs callgrind_control on the counted process; vgdb reaches it even while it is blocked on its stdin. */
async function control(options: CountOptions, pid: number, flag: string): Promise<string> {
  const tool = controlOf(options.valgrind);
  try {
    const { stdout } = await execFileAsync(tool, [flag, String(pid)], { timeout: 60_000 });
    return stdout;
  } catch (error) {
    throw new Error(`${tool} ${flag} ${pid} failed (it reaches the process through vgdb, which needs ptrace on it: run as root or as its user, ` +
      `with kernel.yama.ptrace_scope 0): ${(error as Error).message}`);
  }
}

/** The instructions of every thread in `callgrind_control -e`'s answer (its `Th N  count` lines). */
export function parseEventCounts(answer: string): number {
  let total = 0;
  let threads = 0;
  for (const m of answer.matchAll(/^\s*Th\s+\d+\s+([\d,]+)\s*$/gm)) {
    total += Number(m[1]!.replaceAll(',', ''));
    threads++;
  }
  if (threads === 0) throw new Error(`callgrind_control -e gave no per-thread counts:\n${answer}`);
  return total;
}

/**
 * Instructions callgrind counted over each of `counts` in turn, in one process: each concurrency's
 * counted cycles follow its warm-up, and at the edges bench/ci/cycles.js blocks on its
 * stdin while its counters are zeroed (`callgrind_control -z`) and read (`-e`), so start-up and the
 * warm-ups are never in a count.
 */
export function countCycles(options: CountOptions, counts: readonly Count[]): Promise<number[]> {
  const list = (f: (count: Count, cycles: { warmup: number; counted: number }) => number): string => counts.map((c) => f(c, kCycles[c.concurrency]!)).join(',');
  const args = ['--tool=callgrind', '--callgrind-out-file=/dev/null', '--instr-atstart=no', process.execPath, ...kNodeFlags, join(ROOT, 'bench', 'ci', 'cycles.js'),
    list((c) => c.concurrency), list((_, k) => k.counted), options.urls, list((c) => c.plant), list((_, k) => k.warmup)];
  const what = `callgrind ${counts.map((c) => `c${c.concurrency}`).join(', ')}`;
  return new Promise((resolve, reject) => {
    const child = spawn(options.valgrind, args, { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    const counted: number[] = [];
    let failure: Error | undefined;
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const answer = async (line: string): Promise<void> => {
      if (line === 'warm') {
        await control(options, child.pid!, '--instr=on');
        await control(options, child.pid!, '-z');
      } else if (line === 'counted') {
        counted.push(parseEventCounts(await control(options, child.pid!, '-e')));
        await control(options, child.pid!, '--instr=off');
      } else {
        return;
      }
      child.stdin.write('go\n');
    };
    createInterface({ input: child.stdout }).on('line', (line) => {
      answer(line).catch((error: unknown) => {
        failure ??= error instanceof Error ? error : new Error(String(error));
        child.kill('SIGKILL');
      });
    });
    child.once('error', reject);
    child.once('close', (code) => {
      if (failure !== undefined) reject(failure);
      else if (code === 0 && counted.length === counts.length) resolve(counted);
      else reject(new Error(`${what} exited with code ${String(code)} after ${counted.length} of ${counts.length} counts:\n${stderr.slice(-2000)}`));
    });
  });
}

/**
 * Cycles per concurrency: `warmup` uncounted ones (uninstrumented, so cheap), enough for the JIT to have
 * optimised the cycle's code, then `counted` ones. c1 needs the most: after 2,000 its first count read
 * 174k–185k and the next ones in the same process 167.7k–169.1k (docs/decisions/0011).
 */
export const kCycles: Readonly<Record<number, { readonly warmup: number; readonly counted: number }>> = {
  1: { warmup: 8_000, counted: 6_000 },
  64: { warmup: 3_200, counted: 9_600 },
  512: { warmup: 5_120, counted: 15_360 },
};

/**
 * Instructions of one step of bench/ci/cycles.js's planted work, measured as the planted run's
 * count less the baseline's, divided by the steps: 20.5 at c1, 22.0 at c64 and 21.9 at c512 since the
 * counts are taken in one process after a long warm-up (11.5 at c64 and 11.4 at c512 before, 21.5 and
 * 19.7 before waves; docs/decisions/0011).
 */
export const kPlantStepInstructions = 21.5;

/** Instructions per cycle of each of `counts`, counted in turn by one process. */
export async function instructionsPerCycle(options: CountOptions, counts: readonly Count[]): Promise<number[]> {
  const totals = await countCycles(options, counts);
  return totals.map((total, i) => total / kCycles[counts[i]!.concurrency]!.counted);
}
