import type { MasterSet } from './masters.js';
import { describeOutcomes } from './records.js';
import { InvalidArgumentError, QuorumUnreachableError } from '../errors.js';
import { OP_FORCE } from '../protocol/opcodes.js';
import { isObject } from '../util/checks.js';
import { revokedKey } from './keys.js';

/** forceRelease()'s options. */
export interface ForceReleaseOptions {
  /** Why: the holder's signal aborts with a LockRevokedError carrying it. */
  readonly reason: string;
  /**
   * How long the revoked-marker lives, in ms: a holder learns the reason if it looks before then
   * (with watchHeld at once; otherwise its next renewal must come first). @default 60000
   */
  readonly markerMs?: number;
}

/** What forceRelease() did. */
export interface ForceReleaseResult {
  /** Masters that ran it. */
  readonly masters: number;
  /** Some master held one of the keys (under any token). */
  readonly held: boolean;
}

const kMarkerMs = 60_000;

/** forceRelease()'s options checked: the reason a non-empty string, markerMs a positive integer. */
export function checkForceOptions(options: unknown): Required<ForceReleaseOptions> {
  if (!isObject(options)) throw new InvalidArgumentError('options', 'must be an object with a reason', options);
  const { reason, markerMs = kMarkerMs } = options as Partial<ForceReleaseOptions>;
  if (typeof reason !== 'string' || reason.length === 0)
    throw new InvalidArgumentError('options.reason', 'must be a non-empty string', reason);
  if (!Number.isSafeInteger(markerMs) || markerMs <= 0)
    throw new InvalidArgumentError('options.markerMs', 'must be a positive safe integer of ms', markerMs);
  return { reason, markerMs };
}

/** Deletes `resources`' keys on every master unchecked, with a revoked-marker holding the reason beside each; won on a quorum. */
export async function forceRelease(masters: MasterSet, resources: readonly string[], options: Required<ForceReleaseOptions>,
  budget: number): Promise<ForceReleaseResult> {
  const keys = [...resources, ...resources.map(revokedKey)];
  masters.assertOpen();
  // Every master, not only a quorum: what an operator is told must be the whole picture.
  const attempt = masters.attempt(OP_FORCE, keys, options.reason, String(options.markerMs), budget, true);
  masters.dispatch(attempt);
  await attempt.done;
  if (attempt.votesFor < masters.quorum) {
    const nodes = masters.outcomes(attempt);
    throw new QuorumUnreachableError(`force-release of ${resources.join(', ')} ran on ${attempt.votesFor} of ${masters.nodes.length} `
      + `masters: ${describeOutcomes(nodes)}`, [], nodes);
  }
  return { masters: attempt.votesFor, held: attempt.value > 1 };
}
