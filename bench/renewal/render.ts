import { hostLine, type Host } from '../lib/host.js';
import { median } from '../lib/stats.js';

/** One row of bench/results/renewal.json (see bench/renewal/one.ts). */
export interface RenewalRow {
  readonly contender: string;
  readonly locks: number;
  readonly duration: number;
  readonly windowMs: number;
  readonly commandsPerDuration: number;
  readonly commandsPerLockPerDuration: number;
  readonly executedPerDuration: number;
  readonly redisCpuMsPerDuration: number;
  readonly clientCpuMsPerDuration: number;
  /** This thread's event-loop busy time (absent in results before issue 44). */
  readonly mainLoopBusyMsPerDuration?: number;
  readonly heapBytesPerLock: number;
  readonly lost: number;
  readonly acquireSeconds: number;
  /** Kept from an earlier run by a run of other contenders or sizes: that run's date, version and command. */
  readonly from?: string;
  /** With --reps: every run's client CPU per duration, in run order (this row is the median run). */
  readonly clientCpuRuns?: readonly number[];
}

/** The median of `runs` by client CPU (the lower middle of an even count), with every run's client CPU in run order. */
export function medianRow(runs: readonly RenewalRow[]): RenewalRow {
  const sorted = [...runs].sort((a, b) => a.clientCpuMsPerDuration - b.clientCpuMsPerDuration);
  const row = sorted[Math.floor((sorted.length - 1) / 2)]!;
  return runs.length === 1 ? row : { ...row, clientCpuRuns: runs.map((r) => r.clientCpuMsPerDuration) };
}

/** `a` ÷ `b` in client CPU: the median of the paired runs' ratios when both have as many runs, else of their rows. */
export function cpuRatio(a: RenewalRow, b: RenewalRow): { ratio: number; pairs: number[] } {
  const ra = a.clientCpuRuns;
  const rb = b.clientCpuRuns;
  if (ra === undefined || rb === undefined || ra.length !== rb.length) return { ratio: a.clientCpuMsPerDuration / b.clientCpuMsPerDuration, pairs: [] };
  const pairs = ra.map((x, i) => x / rb[i]!);
  return { ratio: median(pairs), pairs };
}

/** The blocked-loop scenario's row: locks lost by one contender. */
export interface BlockedRow {
  readonly contender: string;
  readonly locks: number;
  readonly duration: number;
  readonly blockMs: number;
  readonly lost: number;
  readonly from?: string;
}

export interface RenewalResult {
  readonly host: Host;
  readonly duration: number;
  readonly windowMs: number;
  /** How long after the locks were held measuring started; absent: 0.8 × duration. */
  readonly settleMs?: number;
  readonly rows: readonly RenewalRow[];
  /** The blocked-loop scenario: locks lost per contender (absent in results before issue 44). */
  readonly blocked?: readonly BlockedRow[];
}

/**
 * This run's rows over `previous`'s: a row of a contender and size this run measured replaces the
 * old one; the others are kept, each marked with the run it came from. The blocked rows likewise,
 * by contender. Rows keep the order of sizes, then of contenders, as the full run writes them.
 */
export function mergeRenewal(run: RenewalResult, previous: RenewalResult | undefined): RenewalResult {
  if (previous === undefined) return run;
  const origin = (r: { readonly from?: string }): string => r.from ?? `${previous.host.date} (pipelock ${previous.host.pipelock}, ${previous.host.command})`;
  const measured = new Set(run.rows.map((r) => `${r.contender}@${r.locks}`));
  const kept = previous.rows.filter((r) => !measured.has(`${r.contender}@${r.locks}`)).map((r) => ({ ...r, from: origin(r) }));
  const contenders = [...new Set([...previous.rows, ...run.rows].map((r) => r.contender))];
  const rows = [...kept, ...run.rows].sort((a, b) => a.locks - b.locks || contenders.indexOf(a.contender) - contenders.indexOf(b.contender));
  const ran = new Set((run.blocked ?? []).map((b) => b.contender));
  const blocked = [...(previous.blocked ?? []).filter((b) => !ran.has(b.contender)).map((b) => ({ ...b, from: origin(b) })), ...(run.blocked ?? [])];
  return { ...run, rows, blocked };
}

const int = (n: number): string => Math.round(n).toLocaleString('en-US');

/** The BENCHMARKS.md section: each size, pipelock beside node-redlock v5's using(), with ratios. */
export function renderRenewal(result: RenewalResult, title = 'Renewal: many held locks kept alive'): string {
  const out: string[] = [`## ${title}`, ''];
  const watch = result.rows.some((r) => r.contender === 'pipelock-watch')
    ? ' pipelock-watch: the same with `watchHeld: true` (the lost-lock signal: each renewal rearms the watch: one MGET per master per batch, counted as sent);'
    : '';
  out.push(
    `\`npm run bench:renewal\`: N locks acquired and held on 5 local masters with a ${result.duration} ms duration, then ` +
      `${int(result.windowMs)} ms measured${result.settleMs === undefined ? '' : ` from ${int(result.settleMs)} ms after the last was held`}; figures per lock duration. pipelock: \`acquire(…, { autoExtend: true })\` (one scheduler, ` +
      `renewals coalesced per master);${watch} node-redlock v5: \`using()\` (a timer and an extend round per lock). "Sent" counts the ` +
      'commands clients sent (both send only EVALSHA while holding); "run" counts every command Redis ran, those inside ' +
      'scripts too. Each contender runs in a fresh process with `--expose-gc`.',
    '',
    hostLine(result.host),
    '',
    '| locks | contender | sent / duration | sent / lock | run / duration | Redis CPU ms / duration | client CPU ms / duration | heap B / lock | lost |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|',
  );
  const sizes = [...new Set(result.rows.map((r) => r.locks))];
  for (const locks of sizes) {
    const rows = result.rows.filter((r) => r.locks === locks);
    for (const r of rows) {
      out.push(`| ${int(locks)} | ${r.contender}${r.from === undefined ? '' : ' †'} | ${int(r.commandsPerDuration)} | ${r.commandsPerLockPerDuration.toFixed(3)} | ${int(r.executedPerDuration)} | ${r.redisCpuMsPerDuration.toFixed(1)} | ${r.clientCpuMsPerDuration.toFixed(1)} | ${int(r.heapBytesPerLock)} | ${int(r.lost)} |`);
    }
    const p = rows.find((r) => r.contender === 'pipelock');
    const n = rows.find((r) => r.contender === 'node-redlock');
    if (p !== undefined && n !== undefined && (n.lost > 0 || p.lost > 0)) {
      const who = n.lost > 0 ? n : p;
      out.push(`| | *no ratio* | ${who.contender} lost ${int(who.lost)} of ${int(locks)} locks (${((100 * who.lost) / locks).toFixed(0)}%): it could not keep them alive, and its costs cover only the survivors | | | | | | |`);
    } else if (p !== undefined && n !== undefined) {
      const x = (a: number, b: number): string => (b > 0 ? `${(a / b).toFixed(1)}×` : 'n/a');
      out.push(`| | *node-redlock ÷ pipelock* | ${x(n.commandsPerDuration, p.commandsPerDuration)} | | ${x(n.executedPerDuration, p.executedPerDuration)} | ${x(n.redisCpuMsPerDuration, p.redisCpuMsPerDuration)} | ${x(n.clientCpuMsPerDuration, p.clientCpuMsPerDuration)} | ${x(n.heapBytesPerLock, p.heapBytesPerLock)} | |`);
    }
    const w = rows.find((r) => r.contender === 'pipelock-worker');
    if (p !== undefined && w !== undefined && p.clientCpuMsPerDuration > 0) {
      const busy = (r: RenewalRow): string => (r.mainLoopBusyMsPerDuration ?? 0).toFixed(1);
      const { ratio, pairs } = cpuRatio(w, p);
      const each = pairs.length === 0 ? '' : ` (median of ${pairs.length} paired runs: ${pairs.map((r) => r.toFixed(2)).join(', ')})`;
      out.push(`| | *worker ÷ in-thread* | client CPU ${ratio.toFixed(2)}×${each}; main loop busy ${busy(w)} ms vs ${busy(p)} ms per duration | | | | | | |`);
    }
  }
  if (result.settleMs === undefined && result.rows.some((r) => r.contender === 'pipelock-worker')) {
    out.push('', 'Measured from 0.8 durations after the locks were held, a window holds start-up\'s one-off work too: the worker '
      + 'thread\'s start, and V8\'s memory-reducing collections of an isolate that went quiet (the main one, once renewals left it). '
      + 'Worker against in-thread in steady state, in alternating pairs: the section "Renewal off the main thread" (`--settle`, `--reps`).');
  }
  const from = [...new Set([...result.rows, ...(result.blocked ?? [])].flatMap((r) => (r.from === undefined ? [] : [r.from])))];
  if (from.length > 0) out.push('', `† kept from an earlier run (same duration and window): ${from.join('; ')}. The other rows: ${result.host.date} (\`${result.host.command}\`).`);
  out.push('', ...renderBlocked(result));
  return out.join('\n');
}

/** The blocked-loop rows (renewal 'main' against 'worker'), when the run had them. */
function renderBlocked(result: RenewalResult): string[] {
  if (result.blocked === undefined || result.blocked.length === 0) return [];
  const out = ['Event loop blocked synchronously once the locks are held (renewal `main` against `worker`):', '', '| contender | locks | duration ms | blocked ms | lost |', '|---|---:|---:|---:|---:|'];
  for (const b of result.blocked) out.push(`| ${b.contender}${b.from === undefined ? '' : ' †'} | ${int(b.locks)} | ${int(b.duration)} | ${int(b.blockMs)} | ${int(b.lost)} |`);
  out.push('');
  return out;
}
