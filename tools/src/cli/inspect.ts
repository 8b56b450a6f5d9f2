import { runInspect, type InspectOptions, type InspectReport } from '../ops/inspect.js';
import { EXIT, parseOr, UsageError } from './errors.js';
import { int, time } from './flags.js';
import { parseOpsFlags, usage, type OpsFlag } from './ops-flags.js';

const FLAGS: Readonly<Record<string, OpsFlag>> = {
  servers: { arg: 'URLS', help: 'comma-separated redis:// or rediss:// URLs of the masters (required)' },
  match: { arg: 'PATTERN', help: 'SCAN MATCH pattern of the keys to look at, e.g. \'orders:*\' (default *)' },
  limit: { arg: 'N', help: 'keys examined per master at most (default 10000)' },
  'time-limit': { arg: 'TIME', help: 'stop scanning after this long; what was seen is reported (default 5s)' },
  count: { arg: 'N', help: 'SCAN COUNT: keys asked per round trip (default 500)' },
  json: { help: 'print the report as JSON' },
};

export const INSPECT_USAGE = usage(
  `usage: pipelock inspect --servers URLS [--match PATTERN] [flags]

Lists what the masters hold: locks (key, owner token prefix, TTL, on how many masters: on fewer
than a quorum it is a leftover that only blocks until it expires), lock keys with no TTL (leaks:
held forever), fencing counters and run-once markers. SCAN-based and bounded in keys and time;
read-only (SCAN, TYPE, PTTL, GET), safe against production. Tokens are never printed in full.`,
  FLAGS,
  'Exit codes: 0 done, 1 a master was unreachable or a lock key has no TTL, 2 bad flags.',
);

function parseInspect(args: readonly string[]): (InspectOptions & { servers: string[]; json: boolean }) | 'help' {
  const parsed = parseOpsFlags('inspect', args, FLAGS, ['json']);
  if (parsed === 'help') return 'help';
  const v = parsed.values;
  const match = typeof v.match === 'string' ? v.match : '*';
  if (match === '') throw new UsageError('--match', 'must not be empty (use * for every key)');
  return {
    servers: parsed.servers,
    json: v.json === true,
    match,
    limit: typeof v.limit === 'string' ? int('--limit', v.limit, 1, 10_000_000) : 10_000,
    timeLimitMs: typeof v['time-limit'] === 'string' ? time('--time-limit', v['time-limit'], 's', 1) : 5000,
    count: typeof v.count === 'string' ? int('--count', v.count, 1, 100_000) : 500,
  };
}

/** `pipelock inspect`: returns the exit code. */
export async function inspect(args: readonly string[]): Promise<number> {
  const options = parseOr('inspect', INSPECT_USAGE, () => parseInspect(args));
  if (typeof options === 'number') return options;
  const report = await runInspect(options.servers, options);
  console.log(options.json ? JSON.stringify(report, null, 2) : formatInspect(report));
  return report.masters.some((m) => !m.reachable || m.error !== undefined) || report.noTtl.length > 0 ? EXIT.failed : EXIT.ok;
}

export function formatInspect(r: InspectReport): string {
  const lines = [`pipelock inspect: ${r.masters.length} master(s), quorum ${r.quorum}, keys matching ${JSON.stringify(r.match)}`];
  for (const m of r.masters) {
    const scanned = `${m.scanned} keys examined${m.complete ? '' : ' (stopped at --limit or --time-limit: incomplete)'}`;
    lines.push(`  ${m.url}: ${!m.reachable ? `unreachable (${m.error ?? '?'})` : m.error !== undefined ? `failed (${m.error})` : scanned}`);
  }
  lines.push('', `locks (${r.locks.length})`);
  for (const l of r.locks) {
    lines.push(`  ${l.state.padEnd(9)}${l.key}  owner ${l.owner}  on ${l.masters}/${r.masters.length}  ttl `
      + `${ttl(l.pttlMs)}${l.otherOwners > 0 ? `  +${l.otherOwners} other owner(s)` : ''}`);
  }
  lines.push('', `no TTL: leaks, held until deleted (${r.noTtl.length})`);
  for (const k of r.noTtl) lines.push(`  ${k.key}  ${k.kind} on ${k.masters} master(s)`);
  if (r.otherNoTtl > 0) lines.push(`  and ${r.otherNoTtl} other matching key(s) without TTL that are not pipelock's`);
  lines.push('', `fencing counters and run-once markers (${r.markers.length})`);
  for (const m of r.markers)
    lines.push(`  ${m.kind.padEnd(18)}${m.key}${m.value === undefined ? '' : ` = ${m.value}`}  on ${m.masters}/${r.masters.length}  ttl `
      + ttl(m.pttlMs));
  return lines.join('\n');
}

function ttl(ms: number): string {
  if (ms === -1) return 'none';
  return ms >= 10_000 ? `${Math.round(ms / 1000)}s` : `${ms}ms`;
}
