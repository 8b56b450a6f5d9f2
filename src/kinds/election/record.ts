import type { MasterSet } from '../../engine/masters.js';
import { NodeTimeoutError, QuorumUnreachableError, type NodeOutcome } from '../../errors.js';
import { asError } from '../../util/checks.js';

/**
 * An election's record: the leader's term and proclaimed value, in a key beside the election's lock
 * key on every master. It is written only where the lock key still holds the writer's token, so a
 * stale leader (its keys expired and taken) can no longer overwrite its successor's record; readers
 * believe a record only where the lock key holds the token it names.
 */
export interface LeaderRecord {
  /** The lock's token: which holding the record belongs to (never shown to callers). */
  readonly token: string;
  readonly term: number;
  readonly value: string;
  /** Counts the holder's proclaims: the highest among a quorum is its current value. */
  readonly seq: number;
}

/**
 * Owner-checked write: the record is set only while KEYS[1] holds ARGV[1], and the change is
 * appended to the election's history (KEYS[3]: the last ARGV[4] changes, kept ARGV[5] ms after the
 * last), which observe() follows so that no change falls between two of its reads.
 */
const WRITE = "if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[2], ARGV[2]) redis.call('RPUSH', KEYS[3], ARGV[3]) redis.call('LTRIM', KEYS[3], -tonumber(ARGV[4]), -1) redis.call('PEXPIRE', KEYS[3], ARGV[5]) return 1 end return 0";

/** How many changes the history keeps, and for how long after the last one (ms). */
export const kHistoryLength = 128;
export const kHistoryTtlMs = 86_400_000;

/** One change in the history: a term begun, or a value proclaimed within it (seq). */
export interface HistoryEntry {
  readonly term: number;
  readonly value: string;
  readonly seq: number;
}
/** Owner-checked delete of the record (resign). */
const ERASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[2]) end return 0";
/**
 * A campaign given up after its write: the record erased as by ERASE, and its change taken out of
 * the history (ARGV[2], its entry as written; a term is never reused, so it names no other change).
 */
const WITHDRAW = "redis.call('LREM', KEYS[3], 0, ARGV[2]) if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[2]) end return 0";

/** A change as the history holds it: the same words for the same change on every master. */
function entryText(entry: HistoryEntry): string {
  return JSON.stringify({ n: entry.term, v: entry.value, s: entry.seq });
}

/**
 * One command on every master, each bounded by `budget` ms, settled as soon as `decided` says the
 * answers so far settle the question: a paused master then costs nothing while a quorum answers,
 * as in every other quorum call (Redlock decides early both ways). Unanswered masters' entries
 * stay undefined; their replies, if they come, are ignored.
 */
function everyMaster(masters: MasterSet, args: readonly string[], budget: number, decided: (replies: readonly unknown[], nodes: readonly (NodeOutcome | undefined)[]) => boolean): Promise<{ replies: unknown[]; nodes: (NodeOutcome | undefined)[] }> {
  const count = masters.nodes.length;
  const replies: unknown[] = Array.from({ length: count }, () => undefined);
  const nodes = Array.from({ length: count }, (): NodeOutcome | undefined => undefined);
  const timers = Array.from({ length: count }, (): NodeJS.Timeout | undefined => undefined);
  let settled = 0;
  let finished = false;
  return new Promise((resolve) => {
    const settle = (index: number, reply: unknown, outcome: NodeOutcome): void => {
      if (finished || nodes[index] !== undefined) return;
      clearTimeout(timers[index]);
      replies[index] = reply;
      nodes[index] = outcome;
      settled++;
      if (settled < count && !decided(replies, nodes)) return;
      finished = true;
      for (const timer of timers) clearTimeout(timer);
      resolve({ replies, nodes });
    };
    masters.nodes.forEach((node, index) => {
      timers[index] = setTimeout(() => { settle(index, undefined, { node: index, name: node.name, vote: 'timeout', error: new NodeTimeoutError(node.name, budget) }); }, budget);
      node.transport.send(args).then(
        (reply) => { settle(index, reply, { node: index, name: node.name, vote: 'for' }); },
        (error: unknown) => { settle(index, undefined, { node: index, name: node.name, vote: 'error', error: asError(error) }); },
      );
    });
  });
}

/** An election's keys: its lock (the name), the leader's record and the history of changes. */
export interface RecordKeys {
  readonly lock: string;
  readonly record: string;
  readonly history: string;
}

/**
 * Writes (`record`) or erases (undefined) the holder's record on a quorum; false if fewer masters did.
 * An erase given `withdrawn` also takes that change out of the history (a campaign given up).
 */
export async function putRecord(masters: MasterSet, keys: RecordKeys, token: string, record: LeaderRecord | undefined, budget: number, withdrawn?: HistoryEntry): Promise<boolean> {
  const args = record !== undefined
    ? ['EVAL', WRITE, '3', keys.lock, keys.record, keys.history, token, JSON.stringify({ t: record.token, n: record.term, v: record.value, s: record.seq }),
      entryText(record), String(kHistoryLength), String(kHistoryTtlMs)]
    : withdrawn === undefined
      ? ['EVAL', ERASE, '2', keys.lock, keys.record, token]
      : ['EVAL', WITHDRAW, '3', keys.lock, keys.record, keys.history, token, entryText(withdrawn)];
  // An erase also counts where the lock key is already gone (0): nothing of this holder is left there.
  const isDone = (reply: unknown): boolean => reply === 1 || (record === undefined && reply === 0);
  const doneCount = (replies: readonly unknown[]): number => replies.filter(isDone).length;
  const refusals = (replies: readonly unknown[], nodes: readonly (NodeOutcome | undefined)[]): number => nodes.filter((node, i) => node !== undefined && !isDone(replies[i])).length;
  const { replies } = await everyMaster(masters, args, budget, (replies, nodes) => doneCount(replies) >= masters.quorum || refusals(replies, nodes) > masters.nodes.length - masters.quorum);
  return doneCount(replies) >= masters.quorum;
}

/**
 * The leader as a quorum of masters sees it: the record whose token the lock key holds on at least a
 * quorum; undefined when none does (no leader, or between leaders). Rejects when fewer than a
 * quorum of masters answered: their silence says nothing either way.
 */
export async function readRecord(masters: MasterSet, keys: RecordKeys, budget: number): Promise<LeaderRecord | undefined> {
  const lockKey = keys.lock;
  const quorum = masters.quorum;
  // Decided once a token's record stands on a quorum, or once a quorum answered and no token can
  // reach one with the masters still out. A quorum read meets every completed proclaim's quorum on
  // one master at least, so the newest value among a quorum's records is the latest completed one.
  const { replies, nodes } = await everyMaster(masters, ['MGET', lockKey, keys.record], budget, (replies, nodes) => {
    const answered = nodes.filter((node) => node?.vote === 'for').length;
    const out = nodes.filter((node) => node === undefined).length;
    const most = Math.max(0, ...[...byToken(replies).values()].map((records) => records.length));
    return most >= quorum || (answered >= quorum && most + out < quorum);
  });
  answeredByQuorum(masters, nodes, `the leader of ${lockKey}`);
  for (const records of byToken(replies).values()) {
    if (records.length < quorum) continue;
    // A proclaim that reached only some masters shows there first: the newest the quorum holds is the value.
    return records.reduce((a, b) => (b.seq > a.seq ? b : a));
  }
  return undefined;
}

/**
 * The history's changes that stand on a quorum of masters, oldest first. Every master is waited
 * for (up to `budget`): a change written on a bare quorum that includes a slow master is seen only
 * with that master's answer. A change on fewer (a write that failed) is not one. Rejects when fewer
 * than a quorum answered.
 */
export async function readHistory(masters: MasterSet, keys: RecordKeys, budget: number): Promise<HistoryEntry[]> {
  const { replies, nodes } = await everyMaster(masters, ['LRANGE', keys.history, '0', '-1'], budget, () => false);
  answeredByQuorum(masters, nodes, `the history of ${keys.lock}`);
  const copies = new Map<string, number>();
  for (const reply of replies) {
    if (!Array.isArray(reply)) continue;
    // A master's list holds each change once: count each entry once per master.
    for (const raw of new Set(reply.map((item: unknown) => (Buffer.isBuffer(item) ? item.toString() : item)))) {
      if (typeof raw === 'string') copies.set(raw, (copies.get(raw) ?? 0) + 1);
    }
  }
  const entries: HistoryEntry[] = [];
  for (const [raw, count] of copies) {
    if (count < masters.quorum) continue;
    const entry = parseEntry(raw);
    if (entry !== undefined) entries.push(entry);
  }
  return entries.sort((a, b) => a.term - b.term || a.seq - b.seq);
}

/** A read that fewer than a quorum answered says nothing either way: rejects, naming each master's outcome. */
function answeredByQuorum(masters: MasterSet, nodes: readonly (NodeOutcome | undefined)[], what: string): void {
  const answered = nodes.filter((node) => node?.vote === 'for').length;
  if (answered >= masters.quorum) return;
  const outcomes = nodes.map((node, index): NodeOutcome => node ?? { node: index, name: masters.nodes[index]!.name, vote: 'timeout' });
  throw new QuorumUnreachableError(`could not read ${what} on a quorum (${answered} of ${masters.nodes.length} answered)`, [], outcomes);
}

/** The JSON object in `text`, or undefined (not something pipelock wrote: nothing is read from it). */
function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const data: unknown = JSON.parse(text);
    return typeof data === 'object' && data !== null ? data as Record<string, unknown> : undefined;
  } catch {
    return undefined;
  }
}

/** A change's fields, as the record and the history both write them. */
function entryOf(data: Record<string, unknown> | undefined): HistoryEntry | undefined {
  const { n, v, s } = data ?? {};
  return typeof n === 'number' && typeof v === 'string' && typeof s === 'number' ? { term: n, value: v, seq: s } : undefined;
}

function parseEntry(raw: string): HistoryEntry | undefined {
  return entryOf(jsonObject(raw));
}

/** The records read, by the token they name (a master's record counts only where its lock key holds that token). */
function byToken(replies: readonly unknown[]): Map<string, LeaderRecord[]> {
  const out = new Map<string, LeaderRecord[]>();
  for (const reply of replies) {
    const record = parse(reply);
    if (record === undefined) continue;
    const seen = out.get(record.token);
    if (seen === undefined) out.set(record.token, [record]);
    else seen.push(record);
  }
  return out;
}

/** A master's `[lock value, record]`, as a record whose token the lock key holds there, or undefined. */
function parse(reply: unknown): LeaderRecord | undefined {
  if (!Array.isArray(reply)) return undefined;
  const [held, raw] = reply as unknown[];
  const text = typeof raw === 'string' ? raw : Buffer.isBuffer(raw) ? raw.toString() : undefined;
  const holder = typeof held === 'string' ? held : Buffer.isBuffer(held) ? held.toString() : undefined;
  if (text === undefined || holder === undefined) return undefined;
  const data = jsonObject(text);
  const entry = entryOf(data);
  return entry === undefined || data?.t !== holder ? undefined : { token: holder, ...entry };
}

/** The record's scripts, for the ACL grants derived from what pipelock runs (src/acl.ts). */
export const RECORD_SCRIPTS: readonly string[] = [WRITE, ERASE, WITHDRAW];
