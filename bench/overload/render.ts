import { hostLine, type Host } from '../lib/host.js';
import { kClosedInFlight, kOpenLoopTarget, type OpenLoopResult } from './open-loop.js';

export const OVERLOAD_CONTENDERS: readonly string[] = ['pipelock', 'redis-semaphore', 'node-redlock'];

/** The release half of a burst: every lock acquired, released at once (absent in older files). */
export interface ReleaseHalf {
  readonly released: number;
  readonly failed: number;
  readonly errors: Readonly<Record<string, number>>;
  readonly firstError?: string;
  readonly elapsedMs: number;
  readonly usPerLock: number | null;
  readonly cpuUsPerLock?: number | null;
  readonly commands: number;
  readonly commandsPerLock: number | null;
  readonly heapUsedPeakMB: number;
  readonly heapTotalPeakMB: number;
  readonly keysLeft: number;
}

/** One burst (bench/overload/one.ts), or why it produced none. */
export interface OverloadRow {
  readonly contender: string;
  readonly n: number;
  readonly retryCount: number;
  readonly error?: string;
  readonly acquired?: number;
  readonly failed?: number;
  readonly errors?: Readonly<Record<string, number>>;
  readonly firstError?: string;
  readonly issuedMs?: number;
  readonly elapsedMs?: number;
  readonly usPerLock?: number | null;
  readonly commands?: number;
  readonly commandsPerLock?: number | null;
  readonly heapUsedPeakMB?: number;
  readonly heapTotalPeakMB?: number;
  readonly heapBytesPerAcquisition?: number;
  readonly cpuUsPerLock?: number | null;
  readonly release?: ReleaseHalf;
}

export interface OverloadResult {
  readonly kind: 'pipelock-bench-overload';
  readonly host: Host;
  readonly masters: number;
  readonly ttl: number;
  readonly rows: readonly OverloadRow[];
  /** `pipelock loadtest` closed loop, then open loop at twice its rate (absent in older files). */
  readonly open?: OpenLoopResult;
  readonly finished: string;
  readonly loadavgEnd: number;
}

interface Done extends OverloadRow {
  readonly acquired: number;
  readonly errors: Readonly<Record<string, number>>;
  readonly elapsedMs: number;
  readonly heapUsedPeakMB: number;
  readonly heapTotalPeakMB: number;
}

const int = (v: number): string => Math.round(v).toLocaleString('en-US');
const done = (row: OverloadRow | undefined): row is Done => row !== undefined && row.error === undefined && row.acquired !== undefined;
/** The uncontended figure: one SET NX per master and lock (coalesced calls add one EVALSHA per batch). */
export const kCommandsPerLockFloor = 5;

function find(rows: readonly OverloadRow[], contender: string, n: number, retryCount: number): OverloadRow | undefined {
  return rows.find((r) => r.contender === contender && r.n === n && r.retryCount === retryCount);
}

/** The issue's "Done means" figures for pipelock, judged from the rows. */
export function overloadTargets(result: OverloadResult): { text: string; figure: string; met: boolean | undefined }[] {
  const rows = result.rows;
  const out: { text: string; figure: string; met: boolean | undefined }[] = [];
  const retries = [...new Set(rows.map((r) => r.retryCount))].sort((a, b) => a - b);
  for (const n of [20_000, 100_000]) {
    for (const retry of retries) {
      const row = find(rows, 'pipelock', n, retry);
      out.push({
        text: `burst of ${int(n)}, retryCount ${retry}: every acquisition succeeds`,
        figure: done(row) ? `${int(row.acquired)} of ${int(n)}` : row?.error ?? 'not run',
        met: done(row) ? row.acquired === n : undefined,
      });
    }
  }
  for (const retry of retries) {
    const small = find(rows, 'pipelock', 10_000, retry);
    const big = find(rows, 'pipelock', 100_000, retry);
    const ok = done(small) && done(big) && typeof small.usPerLock === 'number' && typeof big.usPerLock === 'number';
    out.push({
      text: `retryCount ${retry}: time per lock at 100,000 within 1.5× of that at 10,000`,
      figure: ok ? `${big.usPerLock.toFixed(1)} µs vs ${small.usPerLock.toFixed(1)} µs (${(big.usPerLock / small.usPerLock).toFixed(2)}×)` : 'not measured (a burst acquired nothing)',
      met: ok ? big.usPerLock <= 1.5 * small.usPerLock : done(big) ? false : undefined,
    });
  }
  const mine = rows.filter((r) => r.contender === 'pipelock');
  const worst = mine.reduce((max, r) => Math.max(max, done(r) ? (r.commandsPerLock ?? Infinity) : Infinity), 0);
  out.push({
    text: `Redis commands per lock within 1.5× of ${kCommandsPerLockFloor} at every N`,
    figure: `worst ${Number.isFinite(worst) ? worst.toFixed(2) : '∞ (a burst acquired nothing)'}`,
    met: mine.length === 0 ? undefined : worst <= 1.5 * kCommandsPerLockFloor,
  });
  const heap = mine.filter((r) => r.n === 100_000 && done(r)) as Done[];
  const peak = Math.max(...heap.map((r) => r.heapTotalPeakMB));
  out.push({
    text: 'a 100,000-acquisition burst stays under 300 MB of heap peak',
    figure: heap.length === 0 ? 'not measured' : `${peak.toFixed(0)} MB (V8 heap reserved, the bound on what was live; heapUsed sampled: ${Math.max(...heap.map((r) => r.heapUsedPeakMB)).toFixed(0)} MB)`,
    met: heap.length === 0 ? undefined : peak < 300,
  });
  out.push(...releaseTargets(rows, retries));
  const open = result.open;
  out.push({
    text: `open loop at 2× the closed loop's rate completes ≥ ${100 * kOpenLoopTarget}% of the closed loop's cycles/s`,
    figure: open === undefined ? 'not measured' : `${int(open.open.throughput)} of ${int(open.closed.throughput)} cycles/s (${(100 * open.open.throughput / open.closed.throughput).toFixed(0)}%)`,
    met: open === undefined ? undefined : open.open.throughput >= kOpenLoopTarget * open.closed.throughput,
  });
  return out;
}

/** The BENCHMARKS.md section. */
export function renderOverload(result: OverloadResult): string {
  const out: string[] = ['## Overload: a burst of acquisitions at once, then of their releases', ''];
  out.push(
    `\`npm run bench:overload\`: \`Promise.all\` over N \`acquire([key_i], ${int(result.ttl)})\` on distinct keys, issued in one ` +
      `synchronous loop, ${result.masters} healthy local masters, nothing contended; each burst in a fresh process (\`--expose-gc\`), ` +
      'FLUSHALL before each. Time per lock: from the first call to the last settlement ÷ locks acquired. Commands per lock: every ' +
      'command the masters ran (INFO commandstats deltas summed over the masters, commands run inside scripts included, INFO excluded) ÷ ' +
      `locks acquired; the uncontended floor is ${kCommandsPerLockFloor}, one SET NX per master. Heap: \`process.memoryUsage()\` sampled every 5 ms; ` +
      'heapTotal (what V8 reserved) bounds what was live, heapUsed is as sampled. Heap per acquisition: (heapUsed peak − heapUsed ' +
      'before) ÷ N. Peers: redis-semaphore `RedlockMutex.acquire()` (retryCount + 1 attempts, 200 ms apart, no refresh) and ' +
      'node-redlock v5 `acquire()` with its defaults and the same retryCount, both on ioredis.',
    '',
    hostLine(result.host) + ` (load avg at the end ${result.loadavgEnd.toFixed(2)}; finished ${result.finished})`,
    '',
  );
  out.push('| target | measured | met |', '|---|---|:---:|');
  for (const t of overloadTargets(result)) out.push(`| ${t.text} | ${t.figure} | ${t.met === undefined ? 'not measured' : t.met ? 'yes' : '**no**'} |`);
  out.push('');
  out.push(
    '| N | retryCount | contender | acquired | failed (by code) | wall s | µs / lock | commands / lock | heap peak MB used / reserved | heap B / acquisition |',
    '|---:|---:|---|---:|---|---:|---:|---:|---:|---:|',
  );
  for (const row of result.rows) {
    const name = row.contender === 'pipelock' ? '**pipelock**' : row.contender;
    if (!done(row)) {
      out.push(`| ${int(row.n)} | ${row.retryCount} | ${name} | ⚠ run failed: ${(row.error ?? '').replace(/\|/g, '/').slice(0, 200)} | | | | | | |`);
      continue;
    }
    const failed = Object.entries(row.errors).map(([code, k]) => `${code} ${int(k)}`).join(', ') || '0';
    out.push(`| ${int(row.n)} | ${row.retryCount} | ${name} | ${int(row.acquired)} | ${failed} | ${(row.elapsedMs / 1000).toFixed(2)} | ` +
      `${typeof row.usPerLock === 'number' ? row.usPerLock.toFixed(1) : '–'} | ${typeof row.commandsPerLock === 'number' ? row.commandsPerLock.toFixed(2) : `∞ (${int(row.commands ?? 0)} commands, 0 locks)`} | ` +
      `${row.heapUsedPeakMB.toFixed(0)} / ${row.heapTotalPeakMB.toFixed(0)} | ${int(row.heapBytesPerAcquisition ?? 0)} |`);
  }
  out.push('');
  out.push(...renderReleases(result.rows));
  if (result.open !== undefined) out.push(...renderOpenLoop(result.open));
  return out.join('\n');
}

/** The release half's targets (issue 47), for each retryCount. */
function releaseTargets(rows: readonly OverloadRow[], retries: readonly number[]): { text: string; figure: string; met: boolean | undefined }[] {
  const out: { text: string; figure: string; met: boolean | undefined }[] = [];
  const us = (row: OverloadRow | undefined): number | undefined => (done(row) ? row.release?.usPerLock ?? undefined : undefined);
  for (const retry of retries) {
    const small = find(rows, 'pipelock', 10_000, retry);
    const big = find(rows, 'pipelock', 100_000, retry);
    const half = done(big) ? big.release : undefined;
    out.push({
      text: `release burst of 100,000, retryCount ${retry}: no release reported failed, no key left`,
      figure: half === undefined ? 'not measured' : `${int(half.failed)} failed, ${int(half.keysLeft)} keys left`,
      met: half === undefined ? undefined : half.failed === 0 && half.keysLeft === 0,
    });
    const a = us(small);
    const b = us(big);
    out.push({
      text: `retryCount ${retry}: time per release at 100,000 within 1.5× of that at 10,000`,
      figure: a === undefined || b === undefined ? 'not measured' : `${b.toFixed(1)} µs vs ${a.toFixed(1)} µs (${(b / a).toFixed(2)}×)`,
      met: a === undefined || b === undefined ? undefined : b <= 1.5 * a,
    });
    const acquire = done(big) ? big.usPerLock : null;
    out.push({
      text: `retryCount ${retry}: time per release at 100,000 within 1.2× of the same run's per acquisition`,
      figure: b === undefined || typeof acquire !== 'number' ? 'not measured' : `${b.toFixed(1)} µs vs ${acquire.toFixed(1)} µs (${(b / acquire).toFixed(2)}×)`,
      met: b === undefined || typeof acquire !== 'number' ? undefined : b <= 1.2 * acquire,
    });
  }
  return out;
}

/** The release half of every burst that has one. */
function renderReleases(rows: readonly OverloadRow[]): string[] {
  const halves = rows.filter((row) => done(row) && row.release !== undefined) as (Done & { release: ReleaseHalf })[];
  if (halves.length === 0) return [];
  const out = [
    'Release: in the same process, once every acquisition settled, `Promise.allSettled` over the `release()` of every lock acquired, ' +
      'timed from the first call to the last settlement ÷ locks released; CPU: the client\'s `process.cpuUsage()` over the same span ÷ locks ' +
      '(less sensitive to a busy machine than the wall clock); keys left: DBSIZE summed over the masters once it stops falling (read every ' +
      '250 ms: a release settles at the quorum, the other masters\' deletes may still be on their way); commands per release counted as ' +
      'for acquisitions, then.',
    '',
    '| N | retryCount | contender | released | failed (by code) | keys left | wall s | µs / release | µs / acquisition | CPU µs / release | commands / release | heap peak MB used / reserved |',
    '|---:|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const row of halves) {
    const half = row.release;
    const name = row.contender === 'pipelock' ? '**pipelock**' : row.contender;
    const failed = Object.entries(half.errors).map(([code, k]) => `${code} ${int(k)}`).join(', ') || '0';
    const fixed = (v: number | null | undefined, digits: number): string => (typeof v === 'number' ? v.toFixed(digits) : '–');
    out.push(`| ${int(row.n)} | ${row.retryCount} | ${name} | ${int(half.released)} | ${failed} | ${int(half.keysLeft)} | ${(half.elapsedMs / 1000).toFixed(2)} | ` +
      `${fixed(half.usPerLock, 1)} | ${fixed(row.usPerLock, 1)} | ${fixed(half.cpuUsPerLock, 1)} | ${fixed(half.commandsPerLock, 2)} | ` +
      `${half.heapUsedPeakMB.toFixed(0)} / ${half.heapTotalPeakMB.toFixed(0)} |`);
  }
  out.push('');
  return out;
}

function renderOpenLoop(open: OpenLoopResult): string[] {
  const ms = (us: number): string => (us / 1000).toFixed(1);
  const row = (name: string, run: OpenLoopResult['closed']): string =>
    `| ${name} | ${int(run.throughput)} | ${int(run.late)} | ${int(run.errors)} | ${ms(run.acquireP50Us)} | ${ms(run.acquireP99Us)} | ${ms(run.cycleP99Us)} |`;
  return [
    `Open loop: \`pipelock loadtest --keys 1000000 --duration ${open.seconds}s\` (embedded masters, its default workers), closed loop at \`--concurrency ${kClosedInFlight}\` per worker (the open loop's own in-flight bound), then ` +
      `\`--rate ${open.rate}\` (twice the closed loop's completed cycles/s), back to back. An open-loop cycle is timed from when it was due, so its queue shows in the latencies; ` +
      '"late": due in the window, not completed by its end.',
    '',
    '| run | completed cycles/s | late | errors | acquire p50 ms | acquire p99 ms | cycle p99 ms |',
    '|---|---:|---:|---:|---:|---:|---:|',
    row('closed loop', open.closed),
    row(`open loop at ${int(open.rate)}/s`, open.open),
    '',
  ];
}
