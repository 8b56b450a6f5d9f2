/**
 * BENCHMARKS.md's one-lock-at-a-time profile: one acquire → release cycle at concurrency 1, by part,
 * for the per-command quorum ceiling (raw @redis/client doing the same work), pipelock before the
 * low-concurrency work and pipelock now, side by side, client and Redis. The three are separate
 * `bench:profile` runs made one after another on the same machine; each keeps its host line.
 */
import { hostLine } from '../lib/host.js';
import type { ProfileResult } from './analyze.js';

export interface ProfileTrio {
  readonly ceiling: ProfileResult;
  readonly before: ProfileResult;
  readonly after: ProfileResult;
}

const kShownUs = 0.1;

function us(value: number | undefined): string {
  return value === undefined ? '' : value.toFixed(2);
}

function rowsByName<T extends { readonly name: string }>(results: readonly (readonly T[])[]): Map<string, (T | undefined)[]> {
  const out = new Map<string, (T | undefined)[]>();
  results.forEach((rows, i) => {
    for (const row of rows) {
      const slot = out.get(row.name) ?? Array.from({ length: results.length }, () => undefined);
      slot[i] = row;
      out.set(row.name, slot);
    }
  });
  return out;
}

/** pipelock's client and Redis CPU per cycle beyond the ceiling's, with the kernel's and the main thread's parts. */
function gapLine(label: string, r: ProfileResult, ceiling: ProfileResult): string {
  const total = r.processCpuUsPerCycle - ceiling.processCpuUsPerCycle;
  const kernel = (r.systemCpuUsPerCycle ?? 0) - (ceiling.systemCpuUsPerCycle ?? 0);
  const main = r.client.sampledUsPerCycle - ceiling.client.sampledUsPerCycle;
  const sign = (x: number): string => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(1)}`;
  // The sampled main thread's time holds some of the kernel's (the write syscalls), so the parts overlap and are not summed.
  return `- pipelock ${label}: ${sign(total)} µs of client process CPU per cycle over the ceiling (${(r.processCpuUsPerCycle / ceiling.processCpuUsPerCycle).toFixed(2)}×), of which ${sign(kernel)} in the kernel; ${sign(main)} µs sampled on the main thread; Redis ${sign(r.redis.totalUsPerCycle - ceiling.redis.totalUsPerCycle)} µs.`;
}

export function renderProfileTrio(t: ProfileTrio): string {
  const runs = [t.ceiling, t.before, t.after];
  const out: string[] = ['### One cycle at concurrency 1: the ceiling, pipelock before and after', ''];
  out.push(`\`npm run bench:profile:c1\`: ${t.after.cycles.toLocaleString('en-US')} cycles at 1 in flight on 5 local masters, each under the same sampler as above. ` +
    '"Before" is pipelock at the commit named in its host line (the last one before the low-concurrency work), profiled with the same command from a worktree of that commit; ' +
    'the ceiling is raw @redis/client sending SET NX PX to all and the compare-and-delete script to all, returning at the quorum. ' +
    'At one lock in flight the process waits on the masters most of the time, so the sampled main thread is a small part of the process CPU; the write row holds the wake-up of a master (see above).', '');
  out.push('| per cycle | ceiling | pipelock before | pipelock after |', '|---|---:|---:|---:|');
  out.push(`| cycles/s under the profiler | ${runs.map((r) => Math.round(r.cyclesPerSec).toLocaleString('en-US')).join(' | ')} |`);
  out.push(`| client process CPU, µs | ${runs.map((r) => us(r.processCpuUsPerCycle)).join(' | ')} |`);
  out.push(`| of which kernel, µs | ${runs.map((r) => us(r.systemCpuUsPerCycle)).join(' | ')} |`);
  out.push(`| sampled on the main thread, µs | ${runs.map((r) => us(r.client.sampledUsPerCycle)).join(' | ')} |`);
  out.push(`| Redis CPU (5 masters), µs | ${runs.map((r) => us(r.redis.totalUsPerCycle)).join(' | ')} |`, '');
  out.push(gapLine('before', t.before, t.ceiling), gapLine('after', t.after, t.ceiling), '');
  out.push('| client part (µs / cycle) | ceiling | pipelock before | pipelock after |', '|---|---:|---:|---:|');
  const client = [...rowsByName(runs.map((r) => r.client.rows))]
    .filter(([, rows]) => rows.some((row) => row !== undefined && row.usPerCycle >= kShownUs))
    .sort(([, a], [, b]) => (b[2]?.usPerCycle ?? 0) - (a[2]?.usPerCycle ?? 0));
  for (const [name, rows] of client) out.push(`| ${name} | ${rows.map((row) => us(row?.usPerCycle)).join(' | ')} |`);
  out.push('', '| Redis part (calls, µs / cycle) | ceiling | pipelock before | pipelock after |', '|---|---:|---:|---:|');
  for (const [name, rows] of rowsByName(runs.map((r) => r.redis.rows))) {
    const cell = (row: (typeof rows)[number]): string => row === undefined ? '' : `${Number.isFinite(row.callsPerCycle) ? `${row.callsPerCycle.toFixed(3)} · ` : ''}${us(row.usPerCycle)}`;
    out.push(`| ${name} | ${rows.map(cell).join(' | ')} |`);
  }
  out.push('', `Ceiling: ${hostLine(t.ceiling.host)}`, '', `Before: ${hostLine(t.before.host)}`, '', `After: ${hostLine(t.after.host)}`, '');
  return out.join('\n');
}
