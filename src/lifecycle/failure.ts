import type { Attempt } from '../engine/attempt.js';
import type { MasterSet } from '../engine/masters.js';
import { quorumUnreachable } from '../engine/quorum.js';
import { describeOutcomes } from '../engine/records.js';
import { LockAbortedError, LockExpiredError, QuorumUnreachableError, ResourceLockedError, type ExecutionError,
  type ExecutionStats } from '../errors.js';
import type { Acquisition } from './acquisition.js';
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

/** An acquisition's final error; a refusal by keys that are not locks says what holds them (src/lifecycle/foreign.ts). */
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

/** The error of an acquisition whose schedule ended with `attempt` lost (built after its undo). */
export function acquisitionError(masters: MasterSet, a: Acquisition, attempt: Attempt, foreign: ForeignKeys): Promise<Error> | Error {
  const { settings: s, signal } = a.call;
  const stats = a.stats(masters);
  if (signal?.aborted === true) return new LockAbortedError(signal.reason, stats);
  if (a.expired)
    return new LockExpiredError(`the quorum answered after the lock's validity ran out (${a.duration} ms, driftFactor ${s.driftFactor})`,
      stats, masters.outcomes(attempt));
  const message = `could not acquire ${describeResources(a.resources)} after ${a.attempts.length} attempt(s)`;
  return acquireError(masters, message, attempt, a.resources, a.kind.foreign ? foreign : undefined, s.nodeTimeout, stats);
}
