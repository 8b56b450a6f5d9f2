import { hostLine, type Host } from '../lib/host.js';

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
}

export interface RenewalResult {
  readonly host: Host;
  readonly duration: number;
  readonly windowMs: number;
  readonly rows: readonly RenewalRow[];
  /** The blocked-loop scenario: locks lost per contender (absent in results before issue 44). */
  readonly blocked?: readonly { readonly contender: string; readonly locks: number; readonly duration: number; readonly blockMs: number; readonly lost: number }[];
}

const int = (n: number): string => Math.round(n).toLocaleString('en-US');

/** The BENCHMARKS.md section: each size, pipelock beside node-redlock v5's using(), with ratios. */
export function renderRenewal(result: RenewalResult): string {
  const out: string[] = ['## Renewal: many held locks kept alive', ''];
  const watch = result.rows.some((r) => r.contender === 'pipelock-watch')
    ? ' pipelock-watch: the same with `watchHeld: true` (the lost-lock signal: each renewal rearms the watch: one MGET per master per batch, counted as sent);'
    : '';
  out.push(
    `\`npm run bench:renewal\`: N locks acquired and held on 5 local masters with a ${result.duration} ms duration, then ` +
      `${int(result.windowMs)} ms measured; figures per lock duration. pipelock: \`acquire(…, { autoExtend: true })\` (one scheduler, ` +
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
      out.push(`| ${int(locks)} | ${r.contender} | ${int(r.commandsPerDuration)} | ${r.commandsPerLockPerDuration.toFixed(3)} | ${int(r.executedPerDuration)} | ${r.redisCpuMsPerDuration.toFixed(1)} | ${r.clientCpuMsPerDuration.toFixed(1)} | ${int(r.heapBytesPerLock)} | ${int(r.lost)} |`);
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
      out.push(`| | *worker ÷ in-thread* | client CPU ${(w.clientCpuMsPerDuration / p.clientCpuMsPerDuration).toFixed(2)}×; main loop busy ${busy(w)} ms vs ${busy(p)} ms per duration | | | | | | |`);
    }
  }
  out.push('', ...renderBlocked(result));
  return out.join('\n');
}

/** The blocked-loop rows (renewal 'main' against 'worker'), when the run had them. */
function renderBlocked(result: RenewalResult): string[] {
  if (result.blocked === undefined || result.blocked.length === 0) return [];
  const out = ['Event loop blocked synchronously once the locks are held (renewal `main` against `worker`):', '', '| contender | locks | duration ms | blocked ms | lost |', '|---|---:|---:|---:|---:|'];
  for (const b of result.blocked) out.push(`| ${b.contender} | ${int(b.locks)} | ${int(b.duration)} | ${int(b.blockMs)} | ${int(b.lost)} |`);
  out.push('');
  return out;
}
