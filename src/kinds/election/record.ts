import type { Attempt } from '../../engine/attempt.js';
import type { MasterSet } from '../../engine/masters.js';
import type { Read } from '../../engine/read.js';
import { QuorumUnreachableError } from '../../errors.js';
import { OP_HISTORY_READ, OP_LEADER_ERASE, OP_LEADER_READ, OP_LEADER_WRITE } from '../../protocol/opcodes.js';

/**
 * An election's record: the leader's term and value beside the lock key on every master, written only where the lock
 * key holds the writer's token and believed only where it holds the token it names, so a stale leader cannot win.
 */
export interface LeaderRecord {
  /** The lock's token: which holding the record belongs to (never shown to callers). */
  readonly token: string;
  readonly term: number;
  readonly value: string;
  /** Counts the holder's proclaims: the highest among a quorum is its current value. */
  readonly seq: number;
}

/** One change in the history: a term begun, or a value proclaimed within it (seq). */
export interface HistoryEntry {
  readonly term: number;
  readonly value: string;
  readonly seq: number;
}

/** A change as the history holds it: the same words for the same change on every master. */
function entryText(entry: HistoryEntry): string {
  return JSON.stringify({ n: entry.term, v: entry.value, s: entry.seq });
}

/** An election's keys: its lock (the name), the leader's record and the history of changes. */
export interface RecordKeys {
  readonly lock: string;
  readonly record: string;
  readonly history: string;
}

/**
 * Writes (`record`) or erases (undefined) the holder's record, owner-checked (src/protocol/election-ops.ts); won on a
 * quorum. An erase given `withdrawn` takes that change out of the history (a campaign given up).
 */
export function putRecord(masters: MasterSet, keys: RecordKeys, token: string, record: LeaderRecord | undefined, budget: number,
  withdrawn?: HistoryEntry): Attempt {
  if (record !== undefined) {
    const text = JSON.stringify({ t: record.token, n: record.term, v: record.value, s: record.seq });
    return masters.execute(OP_LEADER_WRITE, [keys.lock, keys.record, keys.history], token, text, budget, 0, entryText(record));
  }
  if (withdrawn === undefined) return masters.execute(OP_LEADER_ERASE, [keys.lock, keys.record], token, '0', budget);
  return masters.execute(OP_LEADER_ERASE, [keys.lock, keys.record, keys.history], token, '0', budget, 0, entryText(withdrawn));
}

/** The record whose token the lock key holds on a quorum, or undefined; rejects when fewer than a quorum answered. */
export async function readRecord(masters: MasterSet, keys: RecordKeys, budget: number): Promise<LeaderRecord | undefined> {
  // Decided once a token's record stands on a quorum, or once a quorum answered and no token can
  // reach one with the masters still out. A quorum read meets every completed proclaim's quorum on
  // one master at least, so the newest value among a quorum's records is the latest completed one.
  const read = await masters.read(OP_LEADER_READ, [keys.lock, keys.record], budget, (answer) => parse(answer)?.token).done;
  answeredByQuorum(masters, read, `the leader of ${keys.lock}`);
  for (const records of byToken(read.answers).values()) {
    if (records.length < masters.quorum) continue;
    // A proclaim that reached only some masters shows there first: the newest the quorum holds is the value.
    return records.reduce((a, b) => (b.seq > a.seq ? b : a));
  }
  return undefined;
}

/**
 * The history's changes that stand on a quorum, oldest first; every master is waited for (up to `budget`), as a
 * change on a bare quorum may need the slowest. Rejects when fewer than a quorum answered.
 */
export async function readHistory(masters: MasterSet, keys: RecordKeys, budget: number): Promise<HistoryEntry[]> {
  const read = await masters.read(OP_HISTORY_READ, [keys.history], budget).done;
  answeredByQuorum(masters, read, `the history of ${keys.lock}`);
  const copies = new Map<string, number>();
  for (const reply of read.answers) {
    if (!Array.isArray(reply)) continue;
    // A master's list holds each change once: count each entry once per master.
    for (const raw of new Set(reply.map(text))) {
      if (raw !== undefined) copies.set(raw, (copies.get(raw) ?? 0) + 1);
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

/** A read won only where a quorum answered (src/engine/read.ts); else it says nothing either way: rejects, naming each master's outcome. */
function answeredByQuorum(masters: MasterSet, read: Read, what: string): void {
  if (read.won) return;
  throw new QuorumUnreachableError(`could not read ${what} on a quorum (${read.votesFor} of ${masters.nodes.length} answered)`,
    [], masters.outcomes(read));
}

/** A string reply (a client may give a Buffer), or undefined. */
function text(reply: unknown): string | undefined {
  return typeof reply === 'string' ? reply : Buffer.isBuffer(reply) ? reply.toString() : undefined;
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
  const record = text(raw);
  const holder = text(held);
  if (record === undefined || holder === undefined) return undefined;
  const data = jsonObject(record);
  const entry = entryOf(data);
  return entry === undefined || data?.t !== holder ? undefined : { token: holder, ...entry };
}
