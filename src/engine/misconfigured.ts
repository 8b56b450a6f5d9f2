import { FAILED, type Attempt } from './attempt.js';
import { MisconfigurationError, type ExecutionStats } from '../errors.js';
import { errorKind, explain, isPermanent } from './master-errors.js';
import type { Master } from './master.js';
import { outcomesOf } from './records.js';

/** The error to fail a lost `attempt` at once: too many masters answered an error no retry heals to form a quorum. */
export function misconfigured(attempt: Attempt, nodes: readonly Master[],
  stats: () => ReadonlyArray<Promise<ExecutionStats>>): MisconfigurationError | undefined {
  const errors = attempt.errors;
  if (errors === undefined) return undefined;
  let first = -1;
  let count = 0;
  for (let i = 0; i < attempt.votes.length; i++) {
    if (attempt.votes[i] !== FAILED || !isPermanent(errorKind(errors[i]!), nodes[i]!.transport.sendBatch !== undefined)) continue;
    if (first === -1) first = i;
    count++;
  }
  if (count <= attempt.size - attempt.quorum) return undefined;
  const error = errors[first]!;
  const kind = errorKind(error);
  const master = nodes[first]!.name;
  const { message, fix } = explain(kind, error, master, attempt.opcode, attempt.keys);
  return new MisconfigurationError(message, { reason: kind, master, keys: attempt.keys, fix }, stats, outcomesOf(attempt, nodes));
}
