/** How many of `n` masters make a quorum: ⌊n/2⌋ + 1, Redlock's majority. */
export function quorumSize(n: number): number {
  return (n >>> 1) + 1;
}
