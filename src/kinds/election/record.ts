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

/** Owner-checked write: the record is set only while KEYS[1] holds ARGV[1]. */
const WRITE = "if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[2], ARGV[2]) return 1 end return 0";
/** Owner-checked delete of the record (resign). */
const ERASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[2]) end return 0";

/** One command on every master, each bounded by `budget` ms (a paused master never answers). */
async function everyMaster(masters: MasterSet, args: readonly string[], budget: number): Promise<{ replies: unknown[]; nodes: NodeOutcome[] }> {
  const replies: unknown[] = [];
  const nodes: NodeOutcome[] = [];
  await Promise.all(masters.nodes.map(async (node, index) => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => { reject(new NodeTimeoutError(node.name, budget)); }, budget);
    });
    try {
      replies[index] = await Promise.race([node.transport.send(args), timeout]);
      nodes[index] = { node: index, name: node.name, vote: 'for' };
    } catch (error) {
      replies[index] = undefined;
      nodes[index] = { node: index, name: node.name, vote: error instanceof NodeTimeoutError ? 'timeout' : 'error', error: asError(error) };
    } finally {
      clearTimeout(timer);
    }
  }));
  return { replies, nodes };
}

/** Writes (`record`) or erases (undefined) the holder's record on a quorum; false if fewer masters did. */
export async function putRecord(masters: MasterSet, lockKey: string, recordKey: string, token: string, record: LeaderRecord | undefined, budget: number): Promise<boolean> {
  const args = record === undefined
    ? ['EVAL', ERASE, '2', lockKey, recordKey, token]
    : ['EVAL', WRITE, '2', lockKey, recordKey, token, JSON.stringify({ t: record.token, n: record.term, v: record.value, s: record.seq })];
  const { replies } = await everyMaster(masters, args, budget);
  // An erase also counts where the lock key is already gone (0): nothing of this holder is left there.
  const done = replies.filter((reply) => reply === 1 || (record === undefined && reply === 0)).length;
  return done >= masters.quorum;
}

/**
 * The leader as a quorum of masters sees it: the record whose token the lock key holds on at least a
 * quorum; undefined when none does (no leader, or between leaders). Rejects when fewer than a
 * quorum of masters answered: their silence says nothing either way.
 */
export async function readRecord(masters: MasterSet, lockKey: string, recordKey: string, budget: number): Promise<LeaderRecord | undefined> {
  const { replies, nodes } = await everyMaster(masters, ['MGET', lockKey, recordKey], budget);
  const answered = nodes.filter((node) => node.vote === 'for').length;
  if (answered < masters.quorum) throw new QuorumUnreachableError(`could not read the leader of ${lockKey} on a quorum (${answered} of ${masters.nodes.length} answered)`, [], nodes);
  const byToken = new Map<string, LeaderRecord[]>();
  for (const reply of replies) {
    const record = parse(reply);
    if (record === undefined) continue;
    const seen = byToken.get(record.token);
    if (seen === undefined) byToken.set(record.token, [record]);
    else seen.push(record);
  }
  for (const records of byToken.values()) {
    if (records.length < masters.quorum) continue;
    // A proclaim that reached only some masters shows there first: the newest the quorum holds is the value.
    return records.reduce((a, b) => (b.seq > a.seq ? b : a));
  }
  return undefined;
}

/** A master's `[lock value, record]`, as a record whose token the lock key holds there, or undefined. */
function parse(reply: unknown): LeaderRecord | undefined {
  if (!Array.isArray(reply)) return undefined;
  const [held, raw] = reply as unknown[];
  const text = typeof raw === 'string' ? raw : Buffer.isBuffer(raw) ? raw.toString() : undefined;
  const holder = typeof held === 'string' ? held : Buffer.isBuffer(held) ? held.toString() : undefined;
  if (text === undefined || holder === undefined) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    // Not a record pipelock wrote (the key was set by someone else): no leader is read from it.
    return undefined;
  }
  if (typeof data !== 'object' || data === null) return undefined;
  const { t, n, v, s } = data as Record<string, unknown>;
  if (t !== holder || typeof n !== 'number' || typeof v !== 'string' || typeof s !== 'number') return undefined;
  return { token: t, term: n, value: v, seq: s };
}
