export { quorumSize } from '../protocol/majority.js';

export const UNDECIDED = 0;
export const WON = 1;
export const LOST = -1;
export type Decision = typeof UNDECIDED | typeof WON | typeof LOST;

/** The votes of one operation so far: this file alone says what such a count means. */
export interface Tally {
  /** Masters asked (N). */
  readonly size: number;
  /** floor(N/2)+1. */
  readonly quorum: number;
  /** Applied the operation. */
  readonly votesFor: number;
  /** Answered, but the keys are another token's (or, extend/release, no longer ours). */
  readonly votesAgainst: number;
  /** Failed (error, connection down) or timed out: no answer. */
  readonly votesUnreachable: number;
  /** Still pending on a stalled master: not waited for (see Attempt.discount). */
  readonly votesStalled: number;
}

/**
 * Whether `stalled` masters of `size` may be written off (src/engine/unanswered.ts): only while a minority, since
 * one stall of the whole client flags every master at once.
 */
export function mayWriteOff(stalled: number, size: number, quorum: number): boolean {
  return stalled <= size - quorum;
}

/**
 * Quorum operations decided as early as they are decided, both ways: won at a quorum of votes for, lost once more
 * than N − Q voted anything else (Redlock's majority rule).
 */
export function decide(t: Tally): Decision {
  if (t.votesFor >= t.quorum) return WON;
  const stalled = mayWriteOff(t.votesStalled, t.size, t.quorum) ? t.votesStalled : 0;
  if (t.votesAgainst + t.votesUnreachable + stalled > t.size - t.quorum) return LOST;
  return UNDECIDED;
}

/**
 * A release is settled once a quorum confirms the lock was held and is now deleted (WON), or a
 * quorum says it was no longer held, i.e. expired (LOST): a slow minority does not hold it up,
 * and failures never decide it (they leave it to the deadline).
 */
export function decideRelease(t: Tally): Decision {
  if (t.votesFor >= t.quorum) return WON;
  if (t.votesAgainst >= t.quorum) return LOST;
  return UNDECIDED;
}

/** Every master answered or timed out and nothing decided earlier (cleanup waits for all): won only with a quorum for. */
export function decideComplete(t: Tally): Decision {
  return t.votesFor >= t.quorum ? WON : LOST;
}

/**
 * A read (src/engine/read.ts) settled by its answers so far: `most` agree (a quorum's answer), or a quorum answered
 * and no answer can still reach one. Silent masters are not waited for.
 */
export function readSettled(t: Tally, most: number): boolean {
  const out = t.size - t.votesFor - t.votesAgainst - t.votesUnreachable;
  return most >= t.quorum || (t.votesFor >= t.quorum && most + out < t.quorum);
}

/** A quorum answered that the keys are not (or no longer) this token's: an extension cannot succeed by retrying. */
export function lostOnQuorum(t: Tally): boolean {
  return t.votesAgainst >= t.quorum;
}

/** A quorum answered (for or against): the lock's state is known, e.g. a release confirmed. */
export function answeredByQuorum(t: Tally): boolean {
  return t.votesFor + t.votesAgainst >= t.quorum;
}

/**
 * Lost to masters' errors, not to other holders: the masters that failed or timed out are enough on
 * their own to leave no quorum, or nothing refused it but errors. Waiting for a release cannot help
 * such an attempt. (An attempt split between contenders while a minority is down is contention.)
 */
export function lostToErrors(t: Tally): boolean {
  return t.votesUnreachable > t.size - t.quorum || (t.votesAgainst === 0 && t.votesUnreachable > 0);
}

/** Too many masters failed or timed out for a quorum to have formed at all (as opposed to the resource being held). */
export function quorumUnreachable(t: Tally): boolean {
  return t.size - t.votesUnreachable < t.quorum;
}
