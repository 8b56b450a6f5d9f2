import { AGAINST, Attempt, FAILED, TIMEOUT, type Vote } from './attempt.js';
import { NodeTimeoutError, ResourceLockedError, type ExecutionStats, type NodeOutcome } from '../errors.js';
import type { Master } from './master.js';

const VOTE_NAMES = ['timeout', 'for', 'against', 'error', 'timeout'] as const;

/** What an attempt's outcomes and stats are read from: the Attempt, or a Settled record of it. */
export interface Voted {
  readonly votes: readonly Vote[];
  readonly errors: readonly (Error | undefined)[] | undefined;
  readonly counts: readonly number[] | undefined;
  readonly keys: readonly string[];
  readonly quorum: number;
  readonly budget: number;
  whenComplete(): Promise<void>;
}

/**
 * What a held lock keeps of a complete attempt for node-redlock's `lock.attempts`: the votes
 * without the Attempt around them. An Attempt is ~360 B with its votes (five masters), kept for as
 * long as the lock is held, and thousands of locks are held at once under autoExtend.
 */
class Settled implements Voted {
  constructor(
    readonly votes: readonly Vote[],
    readonly errors: readonly (Error | undefined)[] | undefined,
    readonly counts: readonly number[] | undefined,
    readonly keys: readonly string[],
    readonly quorum: number,
    readonly budget: number,
  ) {}

  whenComplete(): Promise<void> {
    return Promise.resolve();
  }
}

const NO_KEYS: readonly string[] = Object.freeze([]);
/**
 * Per master count, the record of an attempt every master voted for, and a list of only that: the
 * common case, one per lock, shared by all (its keys and budget are read only for votes against
 * and timeouts, which it has none of).
 */
const ALL_FOR: Settled[] = [];
const ONLY_ALL_FOR: (readonly Voted[])[] = [];

function settled(attempt: Voted): Voted {
  if (!(attempt instanceof Attempt) || attempt.pending !== 0) return attempt;
  const n = attempt.votes.length;
  if (attempt.votesFor === n) {
    const shared = ALL_FOR[n];
    if (shared?.quorum === attempt.quorum) return shared;
    const record = new Settled(Object.freeze(attempt.votes.slice()), undefined, undefined, NO_KEYS, attempt.quorum, 0);
    if (shared === undefined) ALL_FOR[n] = record;
    return record;
  }
  return new Settled(attempt.votes, attempt.errors, attempt.counts, attempt.keys, attempt.quorum, attempt.budget);
}

/** `attempts` with every complete Attempt replaced by its record (its stats read the same). */
export function settle(attempts: readonly Voted[]): readonly Voted[] {
  if (attempts.length !== 1) return attempts.map(settled);
  const record = settled(attempts[0]!);
  if (record !== ALL_FOR[(record.votes.length)]) return [record];
  return (ONLY_ALL_FOR[record.votes.length] ??= Object.freeze([record]));
}

/** Every master's part in one attempt, for errors and results (cold path: built on demand). */
export function outcomesOf(attempt: Voted, nodes: readonly Master[]): NodeOutcome[] {
  const out: NodeOutcome[] = [];
  for (const node of nodes) {
    const vote = attempt.votes[node.index]!;
    const name = node.name;
    if (vote === FAILED) out.push({ node: node.index, name, vote: 'error', error: attempt.errors![node.index]! });
    else if (vote === TIMEOUT) out.push({ node: node.index, name, vote: 'timeout', error: new NodeTimeoutError(name, attempt.budget) });
    else out.push({ node: node.index, name, vote: VOTE_NAMES[vote] });
  }
  return out;
}

/** node-redlock's ExecutionStats for one attempt, resolved once every master answered or timed out. */
export async function statsOf(attempt: Voted, nodes: readonly Master[]): Promise<ExecutionStats> {
  await attempt.whenComplete();
  const votesFor = new Set<Master['client']>();
  const votesAgainst = new Map<Master['client'], Error>();
  for (const outcome of outcomesOf(attempt, nodes)) {
    const client = nodes[outcome.node]!.client;
    if (outcome.vote === 'for') votesFor.add(client);
    else votesAgainst.set(client, outcome.error ?? new ResourceLockedError(againstMessage(attempt, outcome.node)));
  }
  return { membershipSize: nodes.length, quorumSize: attempt.quorum, votesFor, votesAgainst };
}

function againstMessage(attempt: Voted, node: number): string {
  return `The operation was applied to: ${attempt.counts?.[node] ?? 0} of the ${attempt.keys.length} requested resources.`;
}

/** `name vote (why)` for each master, for messages. */
export function describeOutcomes(outcomes: readonly NodeOutcome[]): string {
  return outcomes.map((o) => (o.error === undefined ? `${o.name} ${o.vote}` : `${o.name} ${o.vote} (${o.error.message})`)).join('; ');
}

/** Masters that cannot be said to hold nothing of this attempt: everyone but the explicit `against`. */
export function mayHold(attempt: Attempt, node: number): boolean {
  return attempt.votes[node] !== AGAINST;
}
