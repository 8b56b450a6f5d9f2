/**
 * One job of scripts/run-tests.ts: a test file (or a check such as the typecheck) in its own child
 * process, its stdout and stderr buffered together so that it prints whole when it ends, beside the
 * others that run at the same time.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { parseCpuLine } from '../../test/helpers/cpu.js';

/** A child process to run: `command args` in `cwd` with `env` added to the runner's environment. */
export interface Job {
  /** Its tier (unit, integration, valkey, package, check). */
  readonly tier: string;
  /** What the summary calls it, e.g. test/integration/gate.test.ts. */
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** A check (typecheck, lint) has no uvu summary: exit code 0 passes it. */
  readonly check: boolean;
  /** It keeps a core busy for most of its run (a check, a unit file), rather than waiting on servers and timers. */
  readonly cpu: boolean;
  /** Its outcome rests on timing or order across processes: it runs beside few others, one such file at a time. */
  readonly quiet: boolean;
  /**
   * The share of a core it keeps busy while it runs, with its servers: its last run's CPU over its time (a file that
   * waits out TTLs and retry schedules, under a third); undefined, a whole core.
   */
  readonly share?: number;
}

export interface Tally {
  passed: number;
  failed: number;
  skipped: number;
}

export interface Outcome {
  readonly job: Job;
  readonly tally: Tally;
  /** Why the job counts as failed beyond its failed tests (a timeout, an exit without a summary), if it does. */
  readonly problem: string | undefined;
  readonly output: string;
  readonly startedMs: number;
  readonly endedMs: number;
  /** The test process's CPU and its reaped children's (test/helpers/cpu.ts); undefined for checks. */
  readonly cpuMs?: number | undefined;
}

const kKillGraceMs = 5_000;
/** How long a test process may live on after uvu's summary; a clean exit takes well under a second. */
const kLingerMs = 30_000;
/** How long it has to say what it holds open before it is stopped. */
const kAskGraceMs = 2_000;
/** The end of uvu's summary, which it prints once, after the last suite. */
const kSummaryEnd = /Skipped:\s+\d+\s+Duration:\s+[\d.]+ms/;

/** uvu's closing block: "Total: N / Passed: N / Skipped: N"; the last one printed wins. */
export function parseSummary(output: string): { total: number; passed: number; skipped: number } | undefined {
  // eslint-disable-next-line no-control-regex -- stripping ANSI colour codes, should any slip through
  const plain = output.replace(/\u001b\[[0-9;]*m/g, '');
  const matches = [...plain.matchAll(/Total:\s+(\d+)\s+Passed:\s+(\d+)\s+Skipped:\s+(\d+)/g)];
  const last = matches.at(-1);
  if (last === undefined) return undefined;
  return { total: Number(last[1]), passed: Number(last[2]), skipped: Number(last[3]) };
}

/**
 * What a finished job adds to the totals. Every way a job can go wrong counts as at least one
 * failure, so the last line and the exit status always agree.
 */
export function judge(
  job: Job, output: string, code: number | null, signal: string | null, timedOut: string | undefined, stdout = output,
): { tally: Tally; problem: string | undefined } {
  const exit = signal ?? `code ${String(code)}`;
  if (job.check) {
    const problem = timedOut ?? (code === 0 ? undefined : `exited (${exit})`);
    return { tally: { passed: 0, failed: problem === undefined ? 0 : 1, skipped: 0 }, problem };
  }
  // From stdout alone: the two pipes are read apart, so a warning written to stderr before the
  // summary can land between its lines in the merged output (a loaded machine's reads split it).
  const summary = parseSummary(stdout);
  const tally: Tally = summary
    ? { passed: summary.passed, failed: summary.total - summary.passed, skipped: summary.skipped }
    : { passed: 0, failed: 0, skipped: 0 };
  const problem = timedOut ??
    (summary === undefined
      ? `exited (${exit}) without uvu's summary; ${describeOutput(stdout, output)}`
      : code !== 0 && tally.failed === 0
        ? `exited (${exit}) although its tests passed: an unhandled error or an early exit, see its output`
        : summary.total === 0
          ? 'ran 0 tests'
          : undefined);
  if (problem !== undefined) tally.failed = Math.max(tally.failed, 1);
  return { tally, problem };
}

/** The lines of the output kept in a problem's description: the end of a run says how it ended. */
const kLastLines = 5;

/** What a job without a summary printed: bytes of each stream and its last lines (quoted; the whole output is printed above). */
export function describeOutput(stdout: string, output: string): string {
  const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');
  const last = output.trimEnd().split('\n').slice(-kLastLines).map((line) => line.trimEnd()).filter((line) => line !== '');
  const stderr = bytes(output) - bytes(stdout);
  return `it printed ${bytes(stdout)} bytes on stdout and ${stderr} on stderr` +
    (last.length === 0 ? ', nothing at all'
      : `; its last line${last.length === 1 ? '' : 's'}: ${last.map((line) => JSON.stringify(line)).join(' ⏎ ')}`);
}

/** The children running now, so that a signal to the runner reaches every one of them. */
export const running = new Set<ChildProcess>();

/** Runs `job`, killing it (SIGTERM, then SIGKILL) when it outlives `timeoutMs`, or its summary by `lingerMs`. */
export async function runJob(job: Job, root: string, timeoutMs: number, lingerMs = kLingerMs): Promise<Outcome> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...job.env, NO_COLOR: '1', PIPELOCK_TEST_CPU: '1' };
  // Node warns when both are set, and colours would get in the way of parsing uvu's summary.
  delete env.FORCE_COLOR;
  const startedMs = performance.now();
  const child = spawn(job.command, job.args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  const chunks: Buffer[] = [];
  const stdoutChunks: Buffer[] = [];
  let lingering: NodeJS.Timeout | undefined;
  child.stdout.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    stdoutChunks.push(chunk);
    // uvu's summary ends the run; a process still alive kLingerMs later holds something open (a leak).
    if (lingering === undefined && !job.check && chunk.includes('Duration:')
      && kSummaryEnd.test(Buffer.concat(stdoutChunks.slice(-2)).toString('utf8'))) lingering = setTimeout(() => { linger(); }, lingerMs);
  });
  child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));

  let timedOut: string | undefined;
  let killer: NodeJS.Timeout | undefined;
  const stop = (why: string): void => {
    timedOut ??= why;
    // SIGTERM first: the child's own handlers then stop the servers it started.
    child.kill('SIGTERM');
    killer ??= setTimeout(() => child.kill('SIGKILL'), kKillGraceMs);
  };
  const timer = setTimeout(() => { stop(`ran past --timeout-ms ${timeoutMs} and was stopped`); }, timeoutMs);
  // Asked first what it holds open (test/helpers/setup.ts prints it on SIGUSR2), then stopped.
  const linger = (): void => {
    child.kill('SIGUSR2');
    lingering = setTimeout(() => {
      stop(`did not exit ${lingerMs / 1000} s after its summary: something it opened was left open (what, if it could say: above)`);
    }, kAskGraceMs);
  };
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
    child.once('error', (error) => {
      chunks.push(Buffer.from(`run-tests: cannot start ${job.command}: ${error.message}\n`));
      resolve([null, null]);
    });
    child.once('close', (exitCode, exitSignal) => {
      resolve([exitCode, exitSignal]);
    });
  });
  clearTimeout(timer);
  clearTimeout(killer);
  clearTimeout(lingering);
  running.delete(child);
  const { cpuMs, output } = parseCpuLine(Buffer.concat(chunks).toString('utf8'));
  const stdout = Buffer.concat(stdoutChunks).toString('utf8');
  return { job, ...judge(job, output, code, signal, timedOut, stdout), output, startedMs, endedMs: performance.now(), cpuMs };
}

/**
 * How many jobs run at once: at most `total`, of which at most `cpu` CPU-bound (a check, a unit file), while the
 * shares of a core they keep busy add up to at most `cores` (one job runs whatever its share). A quiet job runs
 * one at a time, the others beside it within `cores - 1`: it has a core to itself.
 */
export interface Limits {
  readonly total: number;
  readonly cpu: number;
  readonly cores: number;
}

/** A share is never taken as less than this: a file that mostly waits still starts a process and its servers. */
const kLeastShare = 0.05;

/** A job's share of a core while it runs, for the pool's sums. */
function shareOf(job: Job): number {
  return job.share === undefined ? 1 : Math.min(1, Math.max(kLeastShare, job.share));
}

/**
 * Runs `jobs` within `limits`, each time starting the first waiting job that fits (so the files
 * that wait on servers fill the cores the CPU-bound ones leave), calling `done` as each ends;
 * `stopped` is asked before each start (a signal stops the launching, not the jobs running).
 */
export async function runPool(jobs: readonly Job[], limits: Limits, start: (job: Job) => Promise<Outcome>,
  done: (outcome: Outcome) => void, stopped: () => boolean): Promise<Outcome[]> {
  const waiting = [...jobs];
  const outcomes: Outcome[] = [];
  const running = new Set<Job>();
  const active = new Set<Promise<void>>();
  for (;;) {
    while (!stopped()) {
      // What runs now: CPU-bound jobs, quiet ones, and the shares of the others.
      let cpu = 0;
      let quiet = 0;
      let load = 0;
      for (const other of running) {
        if (other.cpu) cpu++;
        if (other.quiet) quiet++;
        else load += shareOf(other);
      }
      const fits = (job: Job): boolean => {
        if (running.size === 0) return true;
        if (running.size >= limits.total || (job.cpu && cpu >= limits.cpu)) return false;
        // Beside a quiet job (or to start one), the others keep within a core less.
        const room = quiet > 0 || job.quiet ? limits.cores - 1 : limits.cores;
        if (job.quiet) return quiet === 0 && load <= room + 1e-9;
        return load + shareOf(job) <= room + 1e-9;
      };
      const index = waiting.findIndex(fits);
      if (index < 0) break;
      // A quiet job whose turn came waits for the pool to thin out: nothing starts past it meanwhile.
      const firstQuiet = waiting.findIndex((job) => job.quiet);
      if (quiet === 0 && firstQuiet >= 0 && firstQuiet < index) break;
      const [job] = waiting.splice(index, 1) as [Job];
      running.add(job);
      const task = start(job).then((outcome) => {
        running.delete(job);
        outcomes.push(outcome);
        done(outcome);
        active.delete(task);
      });
      active.add(task);
    }
    if (active.size === 0) return outcomes;
    await Promise.race(active);
  }
}
