/**
 * A test process's CPU for scripts/run-tests.ts: with PIPELOCK_TEST_CPU set, one line on stderr at exit with the
 * process's user + system ms and its reaped children's (the servers it started and stopped), from /proc/self/stat.
 */
import { readFileSync } from 'node:fs';

/** The line's head; run-tests takes the line out of the file's output. */
export const kCpuLine = 'run-tests:cpu';
/** Clock ticks per second of /proc's times (USER_HZ, 100 on Linux). */
const kTicksPerSecond = 100;

/** Own and reaped children's CPU ms, or undefined off Linux. */
export function cpuOfProcess(stat = readProcStat()): { own: number; children: number } | undefined {
  if (stat === undefined) return undefined;
  // Fields after the command name (which may hold spaces, so split after its ')'): utime is the 14th field.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = (i: number): number => Number(fields[i - 3]);
  const ms = (t: number): number => Math.round((t * 1000) / kTicksPerSecond);
  return { own: ms(ticks(14) + ticks(15)), children: ms(ticks(16) + ticks(17)) };
}

function readProcStat(): string | undefined {
  try {
    return readFileSync('/proc/self/stat', 'utf8');
  } catch {
    return undefined;
  }
}

/** The line for `cpu`; parsed back by `parseCpuLine`. */
export function cpuLine(cpu: { own: number; children: number }): string {
  return `${kCpuLine} ${cpu.own} ${cpu.children}`;
}

/** The CPU a job's output reports, and the output without that line. */
export function parseCpuLine(output: string): { cpuMs: number | undefined; output: string } {
  const match = new RegExp(`^${kCpuLine} (\\d+) (\\d+)\\n?`, 'm').exec(output);
  if (match === null) return { cpuMs: undefined, output };
  return { cpuMs: Number(match[1]) + Number(match[2]), output: output.slice(0, match.index) + output.slice(match.index + match[0].length) };
}
