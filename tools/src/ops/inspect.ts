import { DONE_MARKER, quorumSize, TOKEN_BYTES } from 'pipelock/protocol';
import { attempt, connectAll, type OpsClient } from './connect.js';

export interface InspectOptions {
  /** SCAN MATCH pattern. */
  readonly match: string;
  /** Keys examined per master at most. */
  readonly limit: number;
  /** Time for the whole scan, ms; masters still scanning then stop and say so. */
  readonly timeLimitMs: number;
  /** SCAN COUNT hint: keys per round trip. */
  readonly count: number;
}

export type KeyKind = 'lock' | 'run-once-done' | 'run-once-attempts' | 'fence' | 'other';

/** One key as one master has it. */
interface Seen {
  readonly master: number;
  readonly kind: KeyKind;
  /** ms left, -1 without TTL. */
  readonly pttl: number;
  /** The token (locks), counter (fences, attempts), or undefined. */
  readonly value: string | undefined;
}

export interface LockEntry {
  readonly key: string;
  /** The first characters of the owner's token: enough to tell owners apart, not to release the lock. */
  readonly owner: string;
  /** Masters holding the key under this token. */
  readonly masters: number;
  /** held: on a quorum; leftover: on fewer (a failed acquisition's remains, a restarted master) — it only blocks until it expires. */
  readonly state: 'held' | 'leftover';
  /** Other tokens for the same key on other masters (a split after contention or a failover). */
  readonly otherOwners: number;
  /** Largest PTTL among the masters holding it, ms; -1 if any of them has no TTL. */
  readonly pttlMs: number;
}

export interface MarkerEntry {
  readonly key: string;
  readonly kind: 'run-once-done' | 'run-once-attempts' | 'fence';
  /** Counter value (largest over the masters) for fences and attempt counters. */
  readonly value?: number;
  readonly masters: number;
  readonly pttlMs: number;
}

export interface MasterScan {
  readonly url: string;
  readonly reachable: boolean;
  readonly error?: string;
  readonly scanned: number;
  /** The SCAN reached its end (not cut by --limit or --time-limit). */
  readonly complete: boolean;
}

export interface InspectReport {
  readonly match: string;
  readonly quorum: number;
  readonly masters: readonly MasterScan[];
  readonly locks: readonly LockEntry[];
  readonly markers: readonly MarkerEntry[];
  /** Lock keys and run-once markers with no TTL: leaks, held forever (the textbook's deadlock scan). */
  readonly noTtl: readonly { readonly key: string; readonly kind: KeyKind; readonly masters: number }[];
  /** Other matching keys with no TTL: not pipelock's by their values, counted only. */
  readonly otherNoTtl: number;
}

const kOwnerChars = 6;
// createToken(): TOKEN_BYTES random bytes in base64url, no padding.
const kTokenLength = Math.ceil((TOKEN_BYTES * 4) / 3);
const kToken = new RegExp(`^[A-Za-z0-9_-]{${kTokenLength}}$`);
const kAttempts = /:attempts:\d+$/;
const kInteger = /^\d+$/;

/** What kind of pipelock key a string key is, by its name and value. */
export function classify(key: string, value: string): KeyKind {
  if (value === DONE_MARKER) return 'run-once-done';
  if (kInteger.test(value) && key.startsWith('pipelock:fence:')) return 'fence';
  if (kInteger.test(value) && kAttempts.test(key)) return 'run-once-attempts';
  if (kToken.test(value)) return 'lock';
  return 'other';
}

/** SCANs every master (read-only: SCAN, TYPE, PTTL, GET) and puts together what they hold. */
export async function runInspect(urls: readonly string[], options: InspectOptions): Promise<InspectReport> {
  const deadline = performance.now() + options.timeLimitMs;
  const { connections, close } = await connectAll(urls);
  try {
    const scans = await Promise.all(connections.map(async (connection, master) => {
      if (connection.client === undefined) return { scan: { url: connection.url, reachable: false, error: connection.error?.message,
        scanned: 0, complete: false }, keys: new Map<string, Seen>() };
      try {
        return await scanMaster(connection.url, connection.client, master, options, deadline);
      } catch (error) {
        return { scan: { url: connection.url, reachable: true, error: error instanceof Error ? error.message : String(error), scanned: 0,
          complete: false }, keys: new Map<string, Seen>() };
      }
    }));
    return collate(options.match, urls.length, scans.map((s) => s.scan), scans.map((s) => s.keys));
  } finally {
    close();
  }
}

async function scanMaster(url: string, client: OpsClient, master: number, options: InspectOptions,
  deadline: number): Promise<{ scan: MasterScan; keys: Map<string, Seen> }> {
  const keys = new Map<string, Seen>();
  let cursor = '0';
  let scanned = 0;
  do {
    const [next, batch] =
      await client.sendCommand(['SCAN', cursor, 'MATCH', options.match, 'COUNT', String(options.count)]) as [string, string[]];
    cursor = next;
    const room = Math.min(batch.length, options.limit - scanned);
    const names = batch.slice(0, room);
    scanned += names.length;
    // One pipelined round of TYPE + PTTL, then GET for the strings (a GET of another type is WRONGTYPE).
    const types = await Promise.all(names.map((key) => attempt(client, ['TYPE', key])));
    const ttls = await Promise.all(names.map((key) => attempt(client, ['PTTL', key])));
    const values =
      await Promise.all(names.map((key, i) => (types[i] === 'string' ? attempt(client, ['GET', key]) : Promise.resolve(undefined))));
    names.forEach((key, i) => {
      const pttl = ttls[i];
      // Gone between SCAN and PTTL (-2), or the master refused: nothing to report.
      if (typeof pttl !== 'number' || pttl === -2) return;
      const value = values[i];
      const kind = typeof value === 'string' ? classify(key, value) : 'other';
      keys.set(key, { master, kind, pttl, value: kind === 'other' ? undefined : (value as string) });
    });
    if (scanned >= options.limit || performance.now() >= deadline)
      return { scan: { url, reachable: true, scanned, complete: cursor === '0' && room === batch.length }, keys };
  } while (cursor !== '0');
  return { scan: { url, reachable: true, scanned, complete: true }, keys };
}

/** Puts the masters' views of each key together (pure; unit-tested on made-up scans). */
export function collate(match: string, n: number, masters: readonly MasterScan[], perMaster: readonly ReadonlyMap<string,
  Seen>[]): InspectReport {
  const quorum = quorumSize(n);
  const byKey = new Map<string, Seen[]>();
  for (const keys of perMaster) {
    for (const [key, seen] of keys) {
      let list = byKey.get(key);
      if (list === undefined) byKey.set(key, (list = []));
      list.push(seen);
    }
  }
  const locks: LockEntry[] = [];
  const markers: MarkerEntry[] = [];
  const noTtl: InspectReport['noTtl'][number][] = [];
  let otherNoTtl = 0;
  for (const [key, seen] of [...byKey].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const pipelock = seen.filter((s) => s.kind !== 'other');
    const unbounded = seen.filter((s) => s.pttl === -1);
    if (pipelock.length === 0) {
      if (unbounded.length > 0) otherNoTtl++;
      continue;
    }
    const kind = pipelock[0]!.kind;
    if (unbounded.some((s) => s.kind !== 'other' && s.kind !== 'fence')) noTtl.push({ key, kind, masters: unbounded.length });
    if (kind === 'lock') {
      const owners = new Map<string, Seen[]>();
      for (const s of pipelock) if (s.kind === 'lock') owners.set(s.value!, [...(owners.get(s.value!) ?? []), s]);
      const [token, holders] = [...owners].sort((a, b) => b[1].length - a[1].length)[0]!;
      locks.push({
        key, owner: `${token.slice(0, kOwnerChars)}…`, masters: holders.length, state: holders.length >= quorum ? 'held' : 'leftover',
        otherOwners: owners.size - 1, pttlMs: ttlOf(holders),
      });
    } else {
      const values = pipelock.map((s) => Number(s.value));
      markers.push({ key, kind: kind as MarkerEntry['kind'], ...(kind === 'run-once-done' ? {} : { value: Math.max(...values) }),
        masters: pipelock.length, pttlMs: ttlOf(pipelock) });
    }
  }
  return { match, quorum, masters, locks, markers, noTtl, otherNoTtl };
}

function ttlOf(seen: readonly Seen[]): number {
  return seen.some((s) => s.pttl === -1) ? -1 : Math.max(...seen.map((s) => s.pttl));
}
