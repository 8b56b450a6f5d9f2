import type { Attempt } from '../engine/attempt.js';
import type { MasterSet } from '../engine/masters.js';
import { lostOnQuorum } from '../engine/quorum.js';
import { describeOutcomes } from '../engine/records.js';
import { ExtensionLimitError, LockAbortedError, LockExpiredError, LockLostError } from '../errors.js';
import { isAborted, onSchedule } from '../engine/schedule.js';
import type { ResolvedCall } from './call.js';
import { describeResources, quorumError } from '../engine/failure.js';
import { kExtending, kOps, kRenewal, kRenewed, Lock, replaced, type LockOwner } from './lock.js';
import { misconfigured } from '../engine/misconfigured.js';
import { validUntil } from './validity.js';

/** How an extension attempt came out (the one rule extend() and the renewal scheduler share). */
export const EXTENDED = 0;
/** A quorum answered that the keys are no longer this token's: trying again cannot help. */
export const NO_LONGER_HELD = 1;
/** The lock's validity ran out before a quorum confirmed. */
export const RAN_OUT = 2;
/** Masters failed or timed out, and the lock may still be held: try again, or fail if no retry can heal them. */
export const UNCONFIRMED = 3;
export type Extension = typeof EXTENDED | typeof NO_LONGER_HELD | typeof RAN_OUT | typeof UNCONFIRMED;

/** An extension of a lock valid until `until` (performance.now()), decided by `now`. */
export function extensionOf(attempt: Attempt, until: number, now: number): Extension {
  if (attempt.won && now < until) return EXTENDED;
  if (lostOnQuorum(attempt)) return NO_LONGER_HELD;
  return now >= until ? RAN_OUT : UNCONFIRMED;
}

/**
 * Redlock.extend(): the owner-checked PEXPIRE of the lock's keys on every master, retried while masters fail (never
 * past validity). An auto-extended lock is extended in place; any other becomes a new Lock, the old one expired.
 */
export async function extend(masters: MasterSet, owner: LockOwner, lock: Lock, duration: number, call: ResolvedCall): Promise<Lock> {
  const s = call.settings;
  const signal = call.signal;
  if (lock.validity <= 0) throw new LockExpiredError();
  if (lock.extensions >= s.maxExtensions) throw new ExtensionLimitError(s.maxExtensions);
  // As acquire: a caller that already gave up gets nothing sent (the lock is left as it is).
  if (isAborted(signal)) throw new LockAbortedError(signal?.reason, []);
  const attempts: Attempt[] = [];
  const ttlArg = String(duration);
  const stats = masters.stats.bind(masters, attempts);
  // Each master that runs this PEXPIRE sets the keys' TTL to `duration` from then, whatever the
  // quorum answers: a shorter extension than what is left shortens the lock as it is sent.
  const sentBy = validUntil(performance.now(), duration, s.driftFactor);
  if (sentBy < lock.validUntil) lock[kRenewed](sentBy, performance.now());
  // An auto-extended lock is renewed for the new duration from now on, due again from its validity.
  const epoch = lock[kRenewal]?.retime(duration) ?? 0;
  lock[kExtending]++;
  try {
    const extended = await onSchedule(s, signal, stats, () => Math.max(0, lock.validUntil - performance.now()), 'cut', async () => {
      const attempt = masters.execute(lock[kOps].extend, lock.resources, lock.value, ttlArg, s.nodeTimeout);
      attempts.push(attempt);
      await attempt.done;
      const now = performance.now();
      const outcome = extensionOf(attempt, lock.validUntil, now);
      if (outcome === EXTENDED) {
        const until = validUntil(attempt.start, duration, s.driftFactor);
        // An auto-extended lock is extended in place: its scheduler entry and signal stay valid.
        const held = lock[kRenewal];
        if (held !== undefined) {
          if (held.extended(until, epoch, now)) return lock;
          const why = 'the lock was released while the extension was out';
          throw held.signal.error ?? new LockExpiredError(why, stats, masters.outcomes(attempt));
        }
        lock.expiration = 0;
        const next = new Lock(owner, masters, lock.resources, lock.value, attempts, until, lock.extensions + 1, now);
        replaced(lock, next);
        next[kOps] = lock[kOps];
        return next;
      }
      masters.reportRefusals(attempt);
      const nodes = masters.outcomes(attempt);
      if (outcome === NO_LONGER_HELD)
        throw new LockLostError(`${describeResources(lock.resources)} is no longer held under this lock's token on a quorum: `
          + describeOutcomes(nodes), stats, nodes);
      if (outcome === RAN_OUT) throw new LockExpiredError('the lock expired before a quorum confirmed the extension', stats, nodes);
      const misconfiguration = misconfigured(attempt, masters.nodes, stats);
      if (misconfiguration !== undefined) throw misconfiguration;
      return undefined;
    });
    if (extended !== undefined) return extended;
    const last = attempts.at(-1)!;
    throw quorumError(masters, `could not extend ${describeResources(lock.resources)} after ${attempts.length} attempt(s)`, last, stats);
  } finally {
    lock[kExtending]--;
  }
}
