import { BATCH_SHA, SCRIPTS } from 'pipelock/protocol';
import { median } from '../shared/median.js';
import { attempt, parseInfo, type Connection, type OpsClient } from './connect.js';

/** What `pipelock doctor` learns of one master, read-only (INFO, CONFIG GET, PING, TIME, SCRIPT EXISTS, ACL DRYRUN, COMMAND INFO/DOCS). */
export interface MasterFacts {
  readonly url: string;
  readonly reachable: boolean;
  readonly error?: string;
  readonly version?: string;
  readonly runId?: string;
  /** redis_mode: standalone, cluster or sentinel. */
  readonly mode?: string;
  readonly clusterEnabled?: boolean;
  readonly role?: string;
  /** For a replica: its master's host:port. */
  readonly masterOf?: string;
  readonly replid?: string;
  readonly replid2?: string;
  readonly replicas?: number;
  readonly tcpPort?: number;
  /** CONFIG GET results, or why they could not be read. */
  readonly config?: Readonly<Record<string, string>>;
  readonly configError?: string;
  /** Median PING round trip, ms. */
  readonly rttMs?: number;
  /** Whether every pipelock script is in the master's script cache (SCRIPT EXISTS). */
  readonly scriptCached?: boolean;
  /** The ACL user, and the commands pipelock needs that it may not run (undefined: not checkable). */
  readonly aclUser?: string;
  readonly aclDenied?: readonly string[];
  readonly aclNote?: string;
  /**
   * The native compare-and-set/delete the server has (COMMAND INFO, COMMAND DOCS: read-only), so
   * which commands pipelock's single-key extend and release use there.
   */
  readonly native?: NativeFacts;
}

export interface NativeFacts {
  /** `SET … IFEQ` (Valkey 8.1+, Redis 8.4+). */
  readonly setIfEq: boolean;
  /** `DELIFEQ` (Valkey 9.0+) or `DELEX` (Redis 8.4+, Valkey 9.2+). */
  readonly deleteIfEq: 'DELIFEQ' | 'DELEX' | undefined;
  /** `MSETEX` (Valkey 9.1+, Redis 8.4+): a lone multi-key acquisition is one command there. */
  readonly msetex: boolean;
}

/** Two TIME readings of one master against this process's monotonic and wall clocks. */
export interface ClockSample {
  /** Server TIME in ms (epoch). */
  readonly server: number;
  /** performance.now() at the midpoint of the round trip. */
  readonly mono: number;
  /** Date.now() at the midpoint. */
  readonly wall: number;
  /** Half the round trip: how far from `mono` the server may have read its clock. */
  readonly errorMs: number;
}

const kConfig = ['appendonly', 'appendfsync', 'save', 'maxmemory', 'maxmemory-policy'];
const kPings = 5;

/**
 * The commands pipelock sends (SET NX PX for a lone key, EVALSHA and SCRIPT LOAD for its
 * scripts) and those its scripts call, which Redis 7 also checks against the user's ACL.
 */
export function neededCommands(key: string): string[][] {
  return [
    ['SET', key, 'x', 'NX', 'PX', '1000'],
    ['EVALSHA', BATCH_SHA, '1', key],
    ['SCRIPT', 'LOAD', 'return 1'],
    ['GET', key],
    ['EXISTS', key],
    ['DEL', key],
    ['PEXPIRE', key, '1000'],
    ['INCR', key],
    ['TIME'],
  ];
}

export async function gatherFacts(connection: Connection, key: string): Promise<MasterFacts> {
  const { url, client } = connection;
  if (client === undefined) return { url, reachable: false, error: connection.error?.message ?? 'not connected' };
  const info = parseInfo(await attempt(client, ['INFO', 'server']));
  const replication = parseInfo(await attempt(client, ['INFO', 'replication']));
  const cluster = parseInfo(await attempt(client, ['INFO', 'cluster']));
  const config = await readConfig(client);
  const cached = await attempt(client, ['SCRIPT', 'EXISTS', ...SCRIPTS.map((script) => script.sha)]);
  const native = await nativeCommands(client);
  const acl = await checkAcl(client, key, native);
  const role = replication.get('role');
  return {
    url,
    reachable: true,
    // Valkey's redis_version is the Redis version it is compatible with (7.2.4), not its own.
    version: info.has('valkey_version') ? `valkey ${info.get('valkey_version') ?? ''}` : info.get('redis_version'),
    runId: info.get('run_id'),
    mode: info.get('redis_mode'),
    tcpPort: numberOr(info.get('tcp_port')),
    clusterEnabled: cluster.get('cluster_enabled') === '1',
    role,
    masterOf: role === 'slave' ? `${replication.get('master_host') ?? '?'}:${replication.get('master_port') ?? '?'}` : undefined,
    replid: replication.get('master_replid'),
    replid2: replication.get('master_replid2'),
    replicas: numberOr(replication.get('connected_slaves')),
    ...config,
    rttMs: await roundTrip(client),
    scriptCached: Array.isArray(cached) ? cached.every((one) => one === 1) : undefined,
    ...acl,
    ...(native === undefined ? {} : { native }),
  };
}

/** Whether the server knows SET … IFEQ, DELIFEQ, DELEX and MSETEX, asked without running them; undefined when COMMAND is not allowed. */
async function nativeCommands(client: OpsClient): Promise<NativeFacts | undefined> {
  const info = await attempt(client, ['COMMAND', 'INFO', 'DELIFEQ', 'DELEX', 'MSETEX']);
  const docs = await attempt(client, ['COMMAND', 'DOCS', 'SET']);
  if (!Array.isArray(info) || docs instanceof Error) return undefined;
  // An unknown command's entry is nil; SET's documented arguments name IFEQ where it has it.
  const known = (i: number): boolean => info[i] !== null && info[i] !== undefined;
  const flat = (v: unknown): unknown => (v instanceof Map ? Object.fromEntries(v as Map<unknown, unknown>) : v);
  return { setIfEq: /"ifeq"/i.test(JSON.stringify(docs, (_, v: unknown) => flat(v))),
    deleteIfEq: known(0) ? 'DELIFEQ' : known(1) ? 'DELEX' : undefined, msetex: known(2) };
}

async function readConfig(client: OpsClient): Promise<{ config?: Record<string, string>; configError?: string }> {
  const reply = await attempt(client, ['CONFIG', 'GET', ...kConfig]);
  if (reply instanceof Error) return { configError: reply.message };
  const config: Record<string, string> = {};
  // RESP2 answers a flat [name, value, …] list; RESP3 a map.
  if (Array.isArray(reply)) for (let i = 0; i + 1 < reply.length; i += 2) config[String(reply[i])] = String(reply[i + 1]);
  else if (reply instanceof Map) for (const [k, v] of reply) config[String(k)] = String(v);
  else if (typeof reply === 'object' && reply !== null) for (const [k, v] of Object.entries(reply)) config[k] = String(v);
  return { config };
}

async function roundTrip(client: OpsClient): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < kPings; i++) {
    const start = performance.now();
    await client.sendCommand(['PING']);
    times.push(performance.now() - start);
  }
  return median(times);
}

/**
 * ACL DRYRUN (Redis ≥ 7) asks the server whether our user may run each command on `key` without
 * running it. Where DRYRUN itself is not allowed or not known, EVALSHA with no keys and no arguments
 * is tried instead: the script then does nothing, and NOPERM answers the question for EVALSHA.
 */
async function checkAcl(client: OpsClient, key: string,
  native: NativeFacts | undefined): Promise<{ aclUser?: string; aclDenied?: string[]; aclNote?: string }> {
  const who = await attempt(client, ['ACL', 'WHOAMI']);
  if (who instanceof Error) return { aclNote: `ACL WHOAMI failed (${who.message}): permissions not checked` };
  const user = String(who);
  const denied: string[] = [];
  // The native commands too, where the server has them: pipelock's single-key extend and release use them there.
  const nativeNeeded = [
    ...(native?.setIfEq === true ? [['SET', key, 'x', 'IFEQ', 'x', 'PX', '1000']] : []),
    ...(native?.deleteIfEq === 'DELIFEQ' ? [['DELIFEQ', key, 'x']] : native?.deleteIfEq === 'DELEX' ? [['DELEX', key, 'IFEQ', 'x']] : []),
    ...(native?.msetex === true ? [['MSETEX', '1', key, 'x', 'NX', 'PX', '1000']] : []),
  ];
  for (const command of [...neededCommands(key), ...nativeNeeded]) {
    const reply = await attempt(client, ['ACL', 'DRYRUN', user, ...command]);
    if (reply === 'OK') continue;
    if (reply instanceof Error) {
      const probe = await attempt(client, ['EVALSHA', BATCH_SHA, '0']);
      if (probe instanceof Error && probe.message.startsWith('NOPERM'))
        return { aclUser: user, aclDenied: ['EVALSHA'], aclNote: `ACL DRYRUN unavailable (${reply.message}); only EVALSHA was checked` };
      return { aclUser: user, aclNote: `ACL DRYRUN unavailable (${reply.message}); only EVALSHA was checked, and it is allowed` };
    }
    denied.push(command[0] === 'SCRIPT' ? 'SCRIPT LOAD' : command[3] === 'IFEQ' ? 'SET IFEQ' : command[0]!);
  }
  return { aclUser: user, aclDenied: denied };
}

const kTimeTries = 3;

/**
 * TIME on every reachable master at once; undefined where it failed. Each master is asked a few
 * times and the reading with the shortest round trip is kept: the server read its clock somewhere
 * inside that round trip, so half of it bounds the error of placing the reading at its midpoint.
 */
export async function sampleClocks(connections: readonly Connection[]): Promise<(ClockSample | undefined)[]> {
  return Promise.all(connections.map(async ({ client }) => {
    if (client === undefined) return undefined;
    let best: ClockSample | undefined;
    for (let i = 0; i < kTimeTries; i++) {
      const before = performance.now();
      const wallBefore = Date.now();
      const reply = await attempt(client, ['TIME']);
      const after = performance.now();
      if (!Array.isArray(reply)) return undefined;
      const server = Number(reply[0]) * 1000 + Number(reply[1]) / 1000;
      const sample = { server, mono: (before + after) / 2, wall: wallBefore + (after - before) / 2, errorMs: (after - before) / 2 };
      if (best === undefined || sample.errorMs < best.errorMs) best = sample;
    }
    return best;
  }));
}

function numberOr(value: string | undefined): number | undefined {
  const n = Number(value);
  return value === undefined || !Number.isFinite(n) ? undefined : n;
}
