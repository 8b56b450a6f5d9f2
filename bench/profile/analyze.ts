/**
 * bench:profile's arithmetic: self time per function from a V8 CPU profile, grouped into the parts a
 * reader can act on (pipelock's files, @redis/client's encoder/decoder/queue, Node's sockets and
 * streams, promise machinery, GC), and the masters' INFO counters turned into µs per cycle.
 */
import type { Host } from '../lib/host.js';

/** The part of Chrome DevTools' Profile that is read here (Profiler.stop's `profile`). */
export interface CpuProfile {
  readonly nodes: readonly { readonly id: number; readonly callFrame: { readonly functionName: string; readonly url: string } }[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface ProfileRow {
  readonly name: string;
  /** Share of the sampled (non-idle) main-thread time. */
  readonly share: number;
  readonly usPerCycle: number;
}

export interface ClientProfile {
  readonly sampledUsPerCycle: number;
  readonly rows: readonly ProfileRow[];
}

export interface RedisRow {
  readonly name: string;
  readonly callsPerCycle: number;
  readonly usPerCycle: number;
}

export interface RedisProfile {
  /** used_cpu_user + used_cpu_sys over the run, summed over the masters, per cycle. */
  readonly totalUsPerCycle: number;
  readonly rows: readonly RedisRow[];
}

export interface ProfileResult {
  readonly host: Host;
  /** What ran: 'pipelock' (absent in results older than the option) or 'raw-quorum', the per-command ceiling. */
  readonly contender?: string;
  readonly concurrency: number;
  readonly cycles: number;
  readonly cyclesPerSec: number;
  /** process.cpuUsage() per cycle: every thread (GC helpers, libuv) as well as the main one. */
  readonly processCpuUsPerCycle: number;
  /** Of which in the kernel (socket writes and reads, wake-ups): process.cpuUsage().system per cycle. */
  readonly systemCpuUsPerCycle?: number;
  readonly client: ClientProfile;
  readonly redis: RedisProfile;
}

/** Self time in µs per (functionName, url), idle excluded: sample i lasted timeDeltas[i + 1]. */
export function selfTimes(profile: CpuProfile): Map<string, { functionName: string; url: string; us: number }> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const out = new Map<string, { functionName: string; url: string; us: number }>();
  for (let i = 0; i < profile.samples.length; i++) {
    const frame = byId.get(profile.samples[i]!);
    const us = profile.timeDeltas[i + 1] ?? 0;
    if (frame === undefined || frame.functionName === '(idle)' || us <= 0) continue;
    const key = `${frame.functionName}@${frame.url}`;
    const entry = out.get(key) ?? { functionName: frame.functionName, url: frame.url, us: 0 };
    entry.us += us;
    out.set(key, entry);
  }
  return out;
}

/** Which part of the stack a frame belongs to. */
export function partOf(functionName: string, url: string): string {
  if (functionName === '(garbage collector)') return 'V8: garbage collection';
  if (functionName === '(program)') return 'V8: native, outside JavaScript (program)';
  // The native end of socket.write: on loopback the kernel's send path, and the receiving side's
  // TCP processing with it, runs inside this call (and a busy machine's preemption lands here too).
  if (url === '' && (functionName === 'writeUtf8String' || functionName === 'writeBuffer' || functionName === 'writev' || functionName === 'WriteWrap')) return 'Node: socket write syscalls (native; kernel send on loopback)';
  if (url === '') return 'V8 builtins (promises, arrays, strings)';
  const client = /@redis\/client\/dist\/lib\/(.+)\.js$/.exec(url);
  if (client !== null) {
    const path = client[1]!;
    if (path.includes('RESP/decoder')) return '@redis/client: RESP decoder (replies)';
    if (path.includes('RESP/encoder')) return '@redis/client: RESP encoder (commands)';
    if (path.includes('commands-queue')) return '@redis/client: command queue';
    if (path.includes('socket')) return '@redis/client: socket';
    return '@redis/client: client and other';
  }
  if (url.includes('/node_modules/')) return 'other packages';
  const own = /\/dist\/(.+)\.js$/.exec(url);
  if (own !== null) return `pipelock: src/${own[1]!}.ts`;
  if (url.includes('/bench/')) return 'benchmark loop (bench/)';
  if (url.startsWith('node:internal/streams') || url.startsWith('node:net') || url.startsWith('node:internal/stream_base')) return 'Node: sockets and streams';
  if (url.startsWith('node:internal/process/task_queues') || url.startsWith('node:internal/timers') || url.startsWith('node:timers')) return 'Node: ticks and timers';
  if (url.startsWith('node:')) return 'Node: other';
  return 'other';
}

export function categorize(times: ReturnType<typeof selfTimes>, cycles: number): ClientProfile {
  const parts = new Map<string, number>();
  let total = 0;
  for (const { functionName, url, us } of times.values()) {
    const part = partOf(functionName, url);
    parts.set(part, (parts.get(part) ?? 0) + us);
    total += us;
  }
  const rows = [...parts].map(([name, us]) => ({ name, share: us / total, usPerCycle: us / cycles })).sort((a, b) => b.usPerCycle - a.usPerCycle);
  return { sampledUsPerCycle: total / cycles, rows };
}

function cpuUs(info: string): number {
  let us = 0;
  for (const m of info.matchAll(/^used_cpu_(?:user|sys):([\d.]+)/gm)) us += Math.round(Number(m[1]) * 1e6);
  return us;
}

/** `cmdstat_<name>:calls=…,usec=…` of every command, summed over the masters' replies. */
function commandStats(infos: readonly string[]): Map<string, { calls: number; usec: number }> {
  const out = new Map<string, { calls: number; usec: number }>();
  for (const info of infos) {
    for (const m of info.matchAll(/^cmdstat_([\w|]+):calls=(\d+),usec=(\d+)/gm)) {
      const entry = out.get(m[1]!) ?? { calls: 0, usec: 0 };
      entry.calls += Number(m[2]);
      entry.usec += Number(m[3]);
      out.set(m[1]!, entry);
    }
  }
  return out;
}

/**
 * Rows from INFO cpu before and INFO commandstats + cpu after (the stats were reset in between).
 * Redis counts a command a script runs under its own name and inside the script's usec too, so the
 * EVALSHA row contains the SET/GET/DEL rows' time (a lone acquisition's plain SET, if any, is only in
 * SET's); the last row is what no command's clock covers: reading, parsing, replying, the event loop.
 */
export function redisRows(before: readonly string[], after: readonly string[], cycles: number): RedisProfile {
  const total = after.reduce((sum, info, i) => sum + cpuUs(info) - cpuUs(before[i] ?? ''), 0);
  const stats = commandStats(after);
  stats.delete('info');
  stats.delete('config|resetstat');
  const rows: RedisRow[] = [...stats].sort((a, b) => b[1].usec - a[1].usec).map(([name, s]) => ({
    name: name === 'evalsha' ? 'EVALSHA (whole script, the commands it runs included)' : `${name.toUpperCase()}${name === 'evalsha' ? '' : ' (inside scripts, or alone)'}`,
    callsPerCycle: s.calls / cycles,
    usPerCycle: s.usec / cycles,
  }));
  const script = stats.get('evalsha')?.usec ?? 0;
  rows.push({ name: 'outside any command (socket reads and writes, RESP parsing, replies, event loop)', callsPerCycle: NaN, usPerCycle: (total - script) / cycles });
  return { totalUsPerCycle: total / cycles, rows };
}

/** The BENCHMARKS.md section. */
export function renderProfile(r: ProfileResult): string {
  const out: string[] = ['## Where a cycle\'s µs go (profile)', ''];
  // The rows name files as they were at the measured commit: say which, so a moved file reads as history, not as a path.
  out.push(`Measured ${r.host.date.slice(0, 10)} on ${r.host.cpu} (${r.host.cores} cores), pipelock ${r.host.pipelock}; the pipelock rows name the files of that commit.`, '');
  out.push(`\`npm run bench:profile\`: ${r.cycles.toLocaleString('en-US')} acquire → release cycles at ${r.concurrency} in flight on 5 local masters, pipelock from \`dist/\` (as installed), under V8's sampling profiler (100 µs); Redis side from the masters' INFO commandstats and cpu. ${Math.round(r.cyclesPerSec).toLocaleString('en-US')} cycles/s under the profiler. Absolute µs move with the machine; read the shares.`, '');
  const system = r.systemCpuUsPerCycle === undefined ? '' : ` (${r.systemCpuUsPerCycle.toFixed(2)} of them in the kernel)`;
  out.push(`Client: ${r.processCpuUsPerCycle.toFixed(2)} µs of process CPU per cycle${system}, all threads, profiler included; ${r.client.sampledUsPerCycle.toFixed(2)} µs sampled on the main thread. ` +
    'The sampler counts wall time: a socket write wakes a master, which on a machine with fewer cores than processes may take the CPU before the write returns, so the write row holds the masters\' scheduling as well as the kernel\'s send (compare it with the kernel CPU above).', '');
  out.push('| client part | µs / cycle | share |', '|---|---:|---:|');
  for (const row of r.client.rows) if (row.share >= 0.005) out.push(`| ${row.name} | ${row.usPerCycle.toFixed(2)} | ${(row.share * 100).toFixed(1)}% |`);
  out.push('', `Redis: ${r.redis.totalUsPerCycle.toFixed(2)} µs of CPU per cycle, summed over the 5 masters.`, '');
  out.push('| Redis part | calls / cycle | µs / cycle |', '|---|---:|---:|');
  for (const row of r.redis.rows) out.push(`| ${row.name} | ${Number.isFinite(row.callsPerCycle) ? row.callsPerCycle.toFixed(3) : ''} | ${row.usPerCycle.toFixed(2)} |`);
  out.push('');
  return out.join('\n');
}
