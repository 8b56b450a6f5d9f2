/** Majority of `n` masters: floor(n/2)+1. */
export function quorumSize(n: number): number {
  return (n >>> 1) + 1;
}

export const UNDECIDED = 0;
export const WON = 1;
export const LOST = -1;
export type Decision = typeof UNDECIDED | typeof WON | typeof LOST;

/**
 * Decided as early as it is decided, both ways: won at `q` votes for, lost once more than
 * `n − q` masters voted against, failed or timed out (a quorum can no longer form).
 */
export function decide(votesFor: number, votesFailed: number, n: number, q: number): Decision {
  if (votesFor >= q) return WON;
  if (votesFailed > n - q) return LOST;
  return UNDECIDED;
}
