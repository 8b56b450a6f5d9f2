import type { Attempt } from './attempt.js';
import type { MasterSet } from './masters.js';
import { quorumUnreachable } from './quorum.js';
import { describeOutcomes } from './records.js';
import { QuorumUnreachableError, ResourceLockedError, type ExecutionError, type ExecutionStats } from '../errors.js';
import type { ForeignKeys } from './foreign.js';

type Stats = () => ReadonlyArray<Promise<ExecutionStats>>;

/** The resources for a message: the one name, or how many. */
export function describeResources(resources: readonly string[]): string {
  return resources.length === 1 ? JSON.stringify(resources[0]) : `${resources.length} resources`;
}

/** Why `attempt`, the last of an operation, reached no quorum: too many masters failed, or the resource is held. */
export function quorumError(masters: MasterSet, message: string, attempt: Attempt, stats: Stats): ExecutionError {
  const nodes = masters.outcomes(attempt);
  const text = `${message}: ${describeOutcomes(nodes)}`;
  return quorumUnreachable(attempt)
    ? new QuorumUnreachableError(`${text} (quorum ${attempt.quorum} of ${attempt.size} unreachable)`, stats, nodes)
    : new ResourceLockedError(`${text} (held by another lock)`, stats, nodes);
}

/** An acquisition's final error; a refusal by keys that are not locks says what holds them (src/engine/foreign.ts). */
export async function acquireError(masters: MasterSet, message: string, attempt: Attempt, resources: readonly string[],
  foreign: ForeignKeys | undefined, budget: number, stats: Stats): Promise<ExecutionError> {
  const error = quorumError(masters, message, attempt, stats);
  if (!(error instanceof ResourceLockedError) || foreign === undefined) return error;
  const holder = await foreign.holder(masters, attempt, resources, budget);
  if (holder === undefined) return error;
  return new ResourceLockedError(error.message.replace('(held by another lock)',
    `(not a lock: ${holder}; pipelock's locks are strings that expire, so this is the application's data or another library's key, and `
      + `waiting cannot help)`), stats, error.nodes);
}
