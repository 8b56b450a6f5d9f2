import { describeHost, type HostLine } from '../load/host.js';
import type { LatencySummary } from '../load/histogram.js';
import { OP_NAMES, type RunResult } from '../load/result.js';
import { kLateStartMs } from '../load/loops.js';
import { formatValue } from '../load/thresholds.js';
import { contended, contentionLines } from './contention-format.js';

const kLockLost = 'ERR_PIPELOCK_LOCK_LOST';
const kStillAcquiring = 'ERR_LOAD_STILL_ACQUIRING';
const kUnconfirmedRelease = 'ERR_LOAD_RELEASE_UNCONFIRMED';
const kColumns = ['count', 'p50', 'p90', 'p99', 'p99.9', 'max'] as const;

/** The final table: a line on what ran, per-operation percentiles (µs), then throughput, errors, contention and CPU. */
export function formatResult(result: RunResult): string {
  const lines: string[] = [];
  if (result.runs === 1 && result.hosts[0] !== undefined) lines.push(describeRun(result.hosts[0]));
  else lines.push(`pipelock loadtest: ${result.runs} runs merged`);
  for (const host of result.hosts) lines.push(`host: ${describeHost(host)}`);
  lines.push(`measured ${result.measuredSeconds.toFixed(1)} s${result.interrupted ? ' (interrupted: stopped early)' : ''}`, '');

  lines.push(['latency (µs)'.padEnd(14), ...kColumns.map((c) => c.padStart(10))].join(''));
  const row = (name: string, s: LatencySummary): string => [name.padEnd(14),
    ...[s.count, s.p50, s.p90, s.p99, s.p999, s.max].map((v) => String(v).padStart(10))].join('');
  let rows = 0;
  for (const op of OP_NAMES) {
    const s = result.operations[op];
    if (s.count === 0) continue;
    rows++;
    lines.push(row(op, s));
    // The acquisitions split in two: those that lost to a holder and retried, and those that won
    // with their first attempt (which may still have queued behind this process's own callers).
    if (op === 'acquire' && result.waits !== undefined && contended(result)) {
      lines.push(row('  retried', result.waits.retried), row('  1st attempt', result.waits.firstAttempt));
    }
  }
  if (rows === 0) lines.push('(no completed cycles)');
  lines.push('', ...partLines('stage', result.stages), ...partLines('mix', result.mix));
  if (result.runs === 1 && result.hosts[0]?.flags.operation === 'renew-hold') {
    lines.push(describeHolds(result));
  } else {
    lines.push(`throughput    ${result.throughput.toFixed(1)} cycles/s (${result.cycles} cycles)`);
  }
  if (result.late !== undefined) {
    lines.push(`late          ${result.late === 0 ? 'none'
      : `${result.late} cycles due in the window had not completed by its end (behind the schedule: the open loop's backlog)`}`);
  }
  if (result.due !== undefined) {
    const share = result.due === 0 ? '' : ` (${((100 * (result.lateStarts ?? 0)) / result.due).toPrecision(3)}%)`;
    lines.push(`late starts   ${result.lateStarts ?? 0} of ${result.due} cycles due${share} started over ${kLateStartMs}ms behind the `
      + `schedule or never`);
  }
  const errors = Object.entries(result.errors).sort(([, a], [, b]) => b - a);
  lines.push(`errors        ${errors.length === 0 ? 'none' : errors.map(([code, n]) => `${code} ${n}`).join(', ')}`);
  lines.push(...contentionLines(result));
  lines.push(...thresholdLines(result), ...sweepLines(result));
  for (const note of result.notes ?? []) lines.push(`note          ${note}`);
  if (result.clamped > 0) lines.push(`clamped       ${result.clamped} latencies above 60 s recorded as 60 s`);
  for (const cpu of result.cpu) {
    const loops = result.workers.filter((w) => w.run === cpu.run).map((w) => `${Math.round(100 * w.elu)}%`).join(', ');
    lines.push(`client CPU    ${Math.round(cpu.percentOfOneCore)}% of one core (whole `
      + `process${result.runs > 1 ? `, run ${cpu.run + 1}` : ''}); worker event loops busy ${loops || '-'}`);
  }
  return lines.join('\n');
}

/** Per stage or per mix entry, when there is more than one: cycles, throughput, errors and acquire and cycle percentiles (µs). */
function partLines(what: 'stage' | 'mix', parts: RunResult['stages']): string[] {
  if (parts === undefined || parts.length < 2) return [];
  const width = Math.max(14, ...parts.map((p) => p.name.length + 2));
  const head = [`by ${what}`.padEnd(width),
    ...['cycles', 'cycles/s', 'errors', 'acq p50', 'acq p99', 'cycle p99'].map((c) => c.padStart(10))].join('');
  const rows = parts.map((p) => {
    const errors = Object.values(p.errors).reduce((a, b) => a + b, 0);
    return [p.name.padEnd(width), ...[p.cycles, p.throughput.toFixed(1), errors, p.operations.acquire.p50, p.operations.acquire.p99,
      p.operations.cycle.p99].map((v) => String(v).padStart(10))].join('');
  });
  return [head, ...rows, ''];
}

/** --sweep: the knee, then one row per step by rate. */
function sweepLines(result: RunResult): string[] {
  const sweep = result.sweep;
  if (sweep === undefined) return [];
  const knee = sweep.knee === null ? 'none: the first rate already failed'
    : `${sweep.knee}/s (the highest rate that held; the table above is its run)`;
  const head = ['  rate/s'.padEnd(12),
    ...['cycles/s', 'errors', 'late', 'acq p50', 'acq p99', 'cycle p99', 'bounds'].map((c) => c.padStart(10))].join('');
  const rows = sweep.steps.map((s) => [`  ${s.rate}`.padEnd(12),
    ...[s.throughput.toFixed(1), s.errors, `${(100 * s.lateShare).toFixed(1)}%`, s.acquire.p50, s.acquire.p99, s.cycle.p99,
    (s.ok ? 'held' : 'FAIL') + ((s.runs ?? 1) > 1 ? ` ${s.held!}/${s.runs!}` : '')].map((v) => String(v).padStart(10))].join(''));
  return [`sweep         knee ${knee}; bounds ${sweep.bounds.join(', ')}`, head, ...rows];
}

/** One line per threshold: pass or FAIL, the rule, the value over the run, and when it first failed. */
export function thresholdLines(result: Pick<RunResult, 'thresholds' | 'abortedBy'>): string[] {
  const lines = (result.thresholds ?? []).map((t) => {
    const when = t.failedSecond === undefined ? '' : `; first failed after ${t.failedSecond}s measured`;
    return `threshold     ${t.ok ? 'pass' : 'FAIL'}  ${t.rule}${t.implicit === true ? ' (default: errors must not exceed cycles)' : ''}  `
      + `${formatValue(t)}${when}`;
  });
  if (result.abortedBy !== undefined) lines.push(`aborted       the run was stopped early: ${result.abortedBy} failed (--abort-on-fail)`);
  return lines;
}

/** renew-hold: locks held to the end of the run whose release then went unconfirmed (counted as errors, not as cycles). */
export function releasedUnconfirmed(result: RunResult): number {
  return result.errors[kUnconfirmedRelease] ?? 0;
}

/**
 * renew-hold's summary: of the locks asked for (workers × concurrency), how many were held to the
 * end, lost, and still being acquired; every failed attempt to take one shows under errors. A lock
 * held to the end whose release then failed counts as held, and its release under errors.
 */
function describeHolds(result: RunResult): string {
  const f = result.hosts[0]!.flags;
  const wanted = Number(f.workers) * Number(f.concurrency);
  const of = Number.isFinite(wanted) && wanted > 0 ? ` of ${wanted}` : '';
  const unconfirmed = releasedUnconfirmed(result);
  const failed = Object.entries(result.errors).reduce((n, [code, k]) => (code === kLockLost || code === kStillAcquiring
    || code === kUnconfirmedRelease ? n : n + k), 0);
  const releases = unconfirmed > 0 ? `, ${unconfirmed} of them released unconfirmed` : '';
  return `held          ${result.cycles + unconfirmed}${of} locks until the run ended${releases}, kept alive by pipelock; `
    + `${result.errors[kLockLost] ?? 0} lost, ` +
    `${result.errors[kStillAcquiring] ?? 0} still acquiring at the end, ${failed} other failures (see errors)`;
}

function describeRun(host: HostLine): string {
  const f = host.flags;
  const servers = Array.isArray(f.servers)
    && f.servers.length > 0 ? `${f.servers.length} masters (--servers)` : `${String(f.masters)} embedded masters`;
  if (typeof f.scenario === 'string') {
    const stages = Array.isArray(f.stages) ? f.stages.join(', ') : '';
    const loop = Number(f.rate) > 0 ? 'open loop' : 'closed loop';
    return `pipelock loadtest: scenario ${f.scenario} over ${servers}, ${String(f.workers)} workers, ${loop}: ${stages} after `
      + `${Number(f.warmupMs) / 1000}s warm-up` +
      (Array.isArray(f.mix) ? f.mix.map((m) => `\n  mix ${m}`).join('') : '');
  }
  const load = typeof f.rate === 'number' && f.rate > 0 ? `open loop at ${f.rate}/s` : `${String(f.concurrency)} in flight each`;
  const kind = f.kind === undefined || f.kind === 'mutex' ? ''
    : f.kind === 'reentrant' ? ` (reentrant, depth ${String(f.depth)})`
    : f.kind === 'semaphore' ? ` (semaphore, ${String(f.permits)} permits)` : ' (read/write lock)';
  return `pipelock loadtest: ${String(f.operation)}${kind} over ${servers}, ${String(f.workers)} workers, ${load}, `
    + `${String(f.keys)} keys, ` +
    `hold ${String(f.holdMs)}ms, lock ${String(f.lockMs)}ms, ${Number(f.durationMs) / 1000}s after ${Number(f.warmupMs) / 1000}s warm-up`;
}
