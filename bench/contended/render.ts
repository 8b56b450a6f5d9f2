/** The contended benchmark's result shape and its BENCHMARKS.md section (bench/report.ts). */
import { hostLine, type Host } from '../lib/host.js';

export const CONTENDED_CONTENDERS: readonly string[] = ['pipelock', 'pipelock-ioredis', 'pipelock-poll', 'node-redlock', 'redis-semaphore'];

/** One (contender, hold) run, or why it produced none. Times in µs unless named otherwise. */
export interface ContendedRun {
  readonly contender: string;
  readonly holdMs: number;
  readonly error?: string;
  readonly windowMs?: number;
  readonly acquisitions?: number;
  readonly handoffsPerSec?: number;
  readonly waitP50?: number;
  readonly waitP99?: number;
  readonly waitP999?: number;
  /** The longest wait: completed ones, or one still unfinished at the stop if that was longer. */
  readonly waitMax?: number;
  readonly waitMaxCompleted?: number;
  readonly unfinished?: number;
  readonly unfinishedMax?: number;
  /** contenders ÷ handoffs/s: the wait a FIFO queue would give at the same throughput. */
  readonly fifoBound?: number;
  readonly p99OverFifo?: number;
  readonly maxOverFifo?: number;
  /** window ÷ FIFO bound: no wait in the window can be longer, so no ratio can show more. */
  readonly ratioCeiling?: number;
  readonly jain?: number;
  readonly counts?: readonly number[];
  readonly commands?: number;
  readonly commandsPerAcquisition?: number;
  readonly violations?: number;
  readonly failures?: Readonly<Record<string, number>>;
  readonly releaseFailures?: Readonly<Record<string, number>>;
  readonly clamped?: number;
}

export interface ContendedResult {
  readonly kind: 'pipelock-bench-contended';
  readonly host: Host;
  readonly masters: number;
  readonly threads: number;
  readonly perThread: number;
  readonly key: string;
  readonly ttlMs: number;
  readonly seconds: number;
  readonly holds: readonly number[];
  readonly runs: readonly ContendedRun[];
  readonly finished: string;
  readonly loadavgEnd: number;
}

interface Done extends ContendedRun {
  readonly handoffsPerSec: number;
  readonly waitP50: number;
  readonly waitP99: number;
  readonly waitP999: number;
  readonly waitMax: number;
  readonly fifoBound: number;
  readonly p99OverFifo: number;
  readonly maxOverFifo: number;
  readonly jain: number;
  readonly commandsPerAcquisition: number;
  readonly violations: number;
  readonly failures: Readonly<Record<string, number>>;
}

const done = (run: ContendedRun | undefined): run is Done => run !== undefined && run.error === undefined && run.handoffsPerSec !== undefined;
const int = (v: number): string => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : '–');
const ms = (us: number): string => (Number.isFinite(us) ? (us / 1000).toFixed(us < 10_000 ? 2 : 1) : '–');
const x = (v: number): string => (Number.isFinite(v) ? `${v.toFixed(v < 10 ? 2 : 1)}×` : '–');
const codes = (byCode: Readonly<Record<string, number>> | undefined): string =>
  Object.entries(byCode ?? {}).map(([code, n]) => `${code} ${int(n)}`).join(', ') || '0';

/** The targets pipelock (wake-ups on) is held to, per hold. */
export const kContendedTargets = { p99OverFifo: 3, maxOverFifo: 10, jain: 0.98, commandsPerAcquisition: 12, vsSemaphore: 3, ioredisHandoffs: 0.8, ioredisCommands: 1.5 } as const;

export interface ContendedTarget {
  readonly text: string;
  readonly figure: string;
  readonly met: boolean | undefined;
}

export function contendedTargets(result: ContendedResult): ContendedTarget[] {
  const t = kContendedTargets;
  const out: ContendedTarget[] = [];
  for (const hold of result.holds) {
    const find = (id: string): ContendedRun | undefined => result.runs.find((r) => r.contender === id && r.holdMs === hold);
    const p = find('pipelock');
    const ok = done(p);
    const judge = (text: string, figure: (d: Done) => string, met: (d: Done) => boolean): void => {
      out.push({ text: `hold ${hold} ms: ${text}`, figure: ok ? figure(p) : p?.error ?? 'not run', met: ok ? met(p) : undefined });
    };
    // A ratio at or under its limit proves nothing when the window could not have shown more.
    const capped = (ratio: number, limit: number, d: Done): boolean | undefined => (ratio > limit ? false : limit < (d.ratioCeiling ?? 0) ? true : undefined);
    const ceiling = (limit: number, d: Done): string => (limit < (d.ratioCeiling ?? 0) ? '' : `; the ${(d.windowMs ?? 0) / 1000} s window shows at most ${x(d.ratioCeiling ?? NaN)}: run longer (--seconds)`);
    const ratioTarget = (text: string, figure: (d: Done) => string, ratio: (d: Done) => number, limit: number): void => {
      out.push({ text: `hold ${hold} ms: ${text}`, figure: ok ? figure(p) + ceiling(limit, p) : p?.error ?? 'not run', met: ok ? capped(ratio(p), limit, p) : undefined });
    };
    ratioTarget(`wait p99 ≤ ${t.p99OverFifo}× the FIFO bound`, (d) => `${ms(d.waitP99)} ms = ${x(d.p99OverFifo)} (bound ${ms(d.fifoBound)} ms)`, (d) => d.p99OverFifo, t.p99OverFifo);
    ratioTarget(`wait max ≤ ${t.maxOverFifo}× the FIFO bound`, (d) => `${ms(d.waitMax)} ms = ${x(d.maxOverFifo)}`, (d) => d.maxOverFifo, t.maxOverFifo);
    judge(`Jain fairness ≥ ${t.jain}`, (d) => d.jain.toFixed(4), (d) => d.jain >= t.jain);
    judge(`≤ ${t.commandsPerAcquisition} Redis commands per acquisition`, (d) => d.commandsPerAcquisition.toFixed(2), (d) => d.commandsPerAcquisition <= t.commandsPerAcquisition);
    const s = find('redis-semaphore');
    out.push({
      text: `hold ${hold} ms: handoffs/s ≥ ${t.vsSemaphore}× redis-semaphore's`,
      figure: ok && done(s) ? `${int(p.handoffsPerSec)} vs ${int(s.handoffsPerSec)} (${x(p.handoffsPerSec / s.handoffsPerSec)})` : 'not measured',
      met: ok && done(s) ? p.handoffsPerSec >= t.vsSemaphore * s.handoffsPerSec : undefined,
    });
    judge('0 mutual-exclusion violations', (d) => int(d.violations), (d) => d.violations === 0);
    // Issue 32: pipelock handed ioredis clients waits as it does over @redis/client (woken, not polled).
    const io = find('pipelock-ioredis');
    const both = ok && done(io);
    out.push({
      text: `hold ${hold} ms: pipelock-ioredis handoffs/s ≥ ${t.ioredisHandoffs}× pipelock's, commands per acquisition ≤ ${t.ioredisCommands}× pipelock's`,
      figure: both ? `${int(io.handoffsPerSec)} vs ${int(p.handoffsPerSec)} (${x(io.handoffsPerSec / p.handoffsPerSec)}); ${io.commandsPerAcquisition.toFixed(2)} vs ${p.commandsPerAcquisition.toFixed(2)}` : 'not measured',
      met: both ? io.handoffsPerSec >= t.ioredisHandoffs * p.handoffsPerSec && io.commandsPerAcquisition <= t.ioredisCommands * p.commandsPerAcquisition : undefined,
    });
  }
  return out;
}

function holdTable(result: ContendedResult, hold: number): string {
  const head = ['contender', 'acquisitions', 'handoffs/s', 'wait p50 / p99 / p99.9 / max ms', 'FIFO bound ms', 'p99 ÷ FIFO', 'max ÷ FIFO', 'ratio ceiling', 'Jain', 'commands / acquisition', 'violations', 'failures'];
  const rows = [`| ${head.join(' | ')} |`, `|---|${head.slice(1).map(() => '---:').join('|')}|`];
  for (const run of result.runs.filter((r) => r.holdMs === hold)) {
    const name = run.contender === 'pipelock' ? '**pipelock**' : run.contender;
    if (!done(run)) {
      rows.push(`| ${name} | ⚠ run failed: ${(run.error ?? '').replace(/\|/g, '/').slice(0, 200)} |${' |'.repeat(head.length - 2)}`);
      continue;
    }
    const notes = [
      (run.unfinished ?? 0) > 0 && run.waitMax > (run.waitMaxCompleted ?? 0) ? '† unfinished at the stop' : '',
      Object.keys(run.releaseFailures ?? {}).length > 0 ? `release failures: ${codes(run.releaseFailures)}` : '',
    ].filter((s) => s !== '').join('; ');
    rows.push(`| ${[
      name + (notes === '' ? '' : ` (${notes})`),
      int(run.acquisitions ?? NaN),
      int(run.handoffsPerSec),
      `${ms(run.waitP50)} / ${ms(run.waitP99)} / ${ms(run.waitP999)} / ${ms(run.waitMax)}`,
      ms(run.fifoBound),
      x(run.p99OverFifo),
      x(run.maxOverFifo),
      x(run.ratioCeiling ?? NaN),
      Number.isFinite(run.jain) ? run.jain.toFixed(4) : '–',
      // Infinity (no acquisition: node-redlock's livelock) is null in the JSON.
      Number.isFinite(run.commandsPerAcquisition) ? run.commandsPerAcquisition.toFixed(2) : '–',
      int(run.violations),
      codes(run.failures),
    ].join(' | ')} |`);
  }
  return rows.join('\n');
}

/** The BENCHMARKS.md section. */
export function renderContended(result: ContendedResult): string {
  const n = result.threads * result.perThread;
  const out: string[] = [`## Contended: one hot key, ${n} waiters`, ''];
  out.push(
    `\`npm run bench:contended\`: ${n} contenders over ${result.threads} worker threads (${result.perThread} each; every thread has its own ` +
      `lock client and connections, like ${result.threads} app processes) against ${result.masters} local masters, each contender looping ` +
      `\`acquire(['${result.key}'], ${int(result.ttlMs)})\` → hold → \`release()\` for ${result.seconds} s, FLUSHALL before each run. ` +
      'Wait: from the call to acquire() to its resolution (HdrHistogram, µs); max also counts a wait still unfinished when the window ' +
      'closed (†). Handoffs/s: acquisitions completed in the window ÷ its length, all threads. FIFO bound: contenders ÷ handoffs/s, the ' +
      'wait a FIFO queue would give at the same throughput; no wait inside the window can exceed the window, so no ratio can exceed ' +
      'window ÷ FIFO bound (the ratio ceiling), and a ratio target whose limit is at or above it is not judged. Jain fairness: (Σx)² ÷ (n·Σx²) over the contenders\' acquisition counts. ' +
      'Commands per acquisition: INFO commandstats `calls=` deltas over the window, summed over the masters (commands run inside scripts ' +
      'included, INFO excluded) ÷ acquisitions. Violations: a SharedArrayBuffer counter the libraries cannot see; after every acquisition ' +
      '`Atomics.add` must return 0. pipelock, pipelock-ioredis (pipelock handed ioredis clients), pipelock-poll (`wakeups: false`) and node-redlock v5 (ioredis) use retryCount 50, retryDelay ' +
      '200, retryJitter 100; redis-semaphore `RedlockMutex` (ioredis) waits its own way: retryInterval 10 ms, acquireTimeout 10 s, no refresh.',
    '',
    hostLine(result.host) + ` (load avg at the end ${result.loadavgEnd.toFixed(2)}; finished ${result.finished})`,
    '',
  );
  out.push('| target (pipelock) | measured | met |', '|---|---|:---:|');
  for (const t of contendedTargets(result)) out.push(`| ${t.text} | ${t.figure} | ${t.met === undefined ? 'not measured' : t.met ? 'yes' : '**no**'} |`);
  out.push('');
  for (const hold of result.holds) out.push(`### Hold ${hold} ms`, '', holdTable(result, hold), '');
  return out.join('\n');
}
