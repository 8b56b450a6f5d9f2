import { AGAINST, FAILED, TIMEOUT, type Attempt } from './attempt.js';
import { NodeTimeoutError, ResourceLockedError, type ExecutionStats, type NodeOutcome } from './errors.js';
import type { Node } from './node.js';

const VOTE_NAMES = ['timeout', 'for', 'against', 'error', 'timeout'] as const;

/** Every master's part in one attempt, for errors and results (cold path: built on demand). */
export function outcomesOf(attempt: Attempt, nodes: readonly Node[]): NodeOutcome[] {
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
export async function statsOf(attempt: Attempt, nodes: readonly Node[]): Promise<ExecutionStats> {
  await attempt.whenComplete();
  const votesFor = new Set<Node['client']>();
  const votesAgainst = new Map<Node['client'], Error>();
  for (const outcome of outcomesOf(attempt, nodes)) {
    const client = nodes[outcome.node]!.client;
    if (outcome.vote === 'for') votesFor.add(client);
    else votesAgainst.set(client, outcome.error ?? new ResourceLockedError(againstMessage(attempt, outcome.node)));
  }
  return { membershipSize: nodes.length, quorumSize: attempt.quorum, votesFor, votesAgainst };
}

function againstMessage(attempt: Attempt, node: number): string {
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

/** The resources for a message: the one name, or how many. */
export function describeResources(resources: readonly string[]): string {
  return resources.length === 1 ? JSON.stringify(resources[0]) : `${resources.length} resources`;
}
