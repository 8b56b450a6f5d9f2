import { ACL_FEATURES, aclGrants, aclSetUser } from 'pipelock';
import { runDoctor, type DoctorOptions, type DoctorReport, type Finding } from '../ops/doctor.js';
import { EXIT, parseOr, UsageError } from './errors.js';
import { time } from './flags.js';
import { parseOpsFlags, usage, type OpsFlag } from './ops-flags.js';

const FLAGS: Readonly<Record<string, OpsFlag>> = {
  servers: { arg: 'URLS',
    help: 'comma-separated redis:// or rediss:// URLs of the masters, as your Redlock gets them, or one\nredis+cluster:// URL for one '
      + 'Redis Cluster (required)' },
  single: { help: 'one server on purpose: a warning with the trade-off instead of a hazard' },
  acl: { arg: 'USER', help: 'print the ACL SETUSER line that grants USER what pipelock sends (every feature)' },
  'key-pattern': { arg: 'PATTERN', help: 'the ACL key pattern of your lock keys, for --acl (default *)' },
  json: { help: 'print the report as JSON (masters, clock readings, findings)' },
  strict: { help: 'exit 1 on warnings too, not only on hazards' },
  'clock-interval': { arg: 'TIME', help: 'time between the two TIME samples of each master (default 1s; longer is more precise)' },
  'drift-factor': { arg: 'F', help: 'your Redlock driftFactor: a clock rate off by more is a hazard (default 0.01)' },
  'node-timeout': { arg: 'TIME', help: 'your Redlock nodeTimeout: a round trip above half of it is a warning (default 250ms)' },
  key: { arg: 'KEY', help: 'a key named like your lock keys, for the ACL key-pattern check (default pipelock:doctor)' },
};

export const DOCTOR_USAGE = usage(
  `usage: pipelock doctor --servers URLS [flags]

Checks the masters for what breaks Redlock: the same server or replicas listed twice, fewer than
3 masters, eviction that can drop lock keys, persistence against the delayed-restart rule, cluster
mode, a replica given as a master, missing ACL permissions, clocks running at different rates
(TIME sampled twice), slow round trips. Read-only: INFO, CONFIG GET, PING, TIME, SCRIPT EXISTS,
ACL WHOAMI and ACL DRYRUN (which only asks whether a command would be allowed).`,
  FLAGS,
  'Exit codes: 0 no hazard, 1 a hazard (or, with --strict, a warning), 2 bad flags.',
);

type DoctorArgs = DoctorOptions & { servers: string[]; json: boolean; strict: boolean; acl: string | undefined; keyPattern: string };

function parseDoctor(args: readonly string[]): DoctorArgs | 'help' {
  const parsed = parseOpsFlags('doctor', args, FLAGS, ['json', 'strict', 'single'], true);
  if (parsed === 'help') return 'help';
  const v = parsed.values;
  const driftFactor = v['drift-factor'] === undefined ? 0.01 : Number(v['drift-factor']);
  if (!Number.isFinite(driftFactor) || driftFactor <= 0 || driftFactor >= 1)
    throw new UsageError('--drift-factor', 'must be a number between 0 and 1', String(v['drift-factor']));
  const key = typeof v.key === 'string' ? v.key : 'pipelock:doctor';
  if (key === '') throw new UsageError('--key', 'must not be empty');
  if (v.acl === '') throw new UsageError('--acl', 'must name the ACL user');
  return {
    servers: parsed.servers,
    json: v.json === true,
    strict: v.strict === true,
    clockIntervalMs: typeof v['clock-interval'] === 'string' ? time('--clock-interval', v['clock-interval'], 's', 100) : 1000,
    nodeTimeoutMs: typeof v['node-timeout'] === 'string' ? time('--node-timeout', v['node-timeout'], 'ms', 1) : 250,
    driftFactor,
    key,
    single: v.single === true,
    acl: typeof v.acl === 'string' ? v.acl : undefined,
    keyPattern: typeof v['key-pattern'] === 'string' ? v['key-pattern'] : '*',
  };
}

/** `pipelock doctor`: returns the exit code. */
export async function doctor(args: readonly string[]): Promise<number> {
  const options = parseOr('doctor', DOCTOR_USAGE, () => parseDoctor(args));
  if (typeof options === 'number') return options;
  const report = await runDoctor(options.servers, options);
  console.log(options.json ? JSON.stringify(report, null, 2) : formatDoctor(report));
  if (options.acl !== undefined) console.log(`\n${aclLines(report, options.acl, options.keyPattern).join('\n')}`);
  return report.hazards > 0 || (options.strict && report.warnings > 0) ? EXIT.failed : EXIT.ok;
}

export function formatDoctor(report: DoctorReport): string {
  const lines = [`pipelock doctor: ${report.masters.length} master(s)`, ''];
  const header = ['master', 'version', 'role', 'rtt ms', 'clock rate', 'offset ms', 'persistence', 'eviction'];
  const rows = report.masters.map((m) => {
    const clock = report.clocks.find((c) => c.master === m.url);
    if (!m.reachable) return [m.url, 'unreachable', '', '', '', '', '', ''];
    const c = m.config;
    const persistence = c === undefined ? '?' : c.appendonly === 'yes' ? `aof ${c.appendfsync ?? '?'}` : c.save === '' ? 'none' : 'rdb';
    const eviction = c === undefined ? '?' : Number(c.maxmemory ?? '0') > 0 ? (c['maxmemory-policy'] ?? '?') : 'no maxmemory';
    return [m.url, m.version ?? '?', m.clusterEnabled === true ? 'cluster' : (m.role ?? '?'), m.rttMs?.toFixed(2) ?? '?',
      clock?.rate.toFixed(4) ?? '?', clock === undefined ? '?' : signed(Math.round(clock.offsetMs)), persistence, eviction];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  for (const row of [header, ...rows]) lines.push(row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd());
  lines.push('');
  for (const f of report.findings) lines.push(...formatFinding(f));
  lines.push(`${report.hazards} hazard(s), ${report.warnings} warning(s)`);
  return lines.join('\n');
}

function formatFinding(f: Finding): string[] {
  return [`${f.severity.toUpperCase().padEnd(8)}${f.check}: ${f.message}`, `        consequence: ${f.consequence}`,
    `        fix: ${f.fix}`, ''];
}

/**
 * The ACL SETUSER line for `user`, one per kind of server among the masters: a server refuses to
 * grant a command it does not have, so the native compare-and-delete and MSETEX are granted only where they exist.
 */
export function aclLines(report: DoctorReport, user: string, keyPattern: string): string[] {
  const grants = aclGrants(ACL_FEATURES, keyPattern);
  const natives = new Map<string, string[]>();
  for (const m of report.masters) {
    const native = [m.native?.deleteIfEq?.toLowerCase() ?? '', m.native?.msetex === true ? 'msetex' : ''].filter((c) => c !== '').join(' ');
    natives.set(native, [...(natives.get(native) ?? []), m.url]);
  }
  const lines = ['# grants for every pipelock feature (docs/deployments.md, "TLS, credentials and ACL users"); set the password:'];
  for (const [native, urls] of natives) {
    if (natives.size > 1) lines.push(`# on ${urls.join(', ')}`);
    lines.push(aclSetUser(user, grants, native === '' ? [] : native.split(' ')));
  }
  return lines;
}

function signed(n: number): string {
  return n > 0 ? `+${n}` : String(n);
}
