/**
 * The gate: one master that orders the callers a release wakes.
 *
 * Every process's head waiter hears the same invalidation at about the same moment and retries at
 * once. Sent to all N masters together, their SET NX calls reach each master in a different order,
 * each master grants the first it sees, and three heads on five masters often take 2 + 2 + 1 votes:
 * nobody has a quorum, everybody undoes and tries again (Redlock's split vote; antirez's article
 * on the algorithm asks clients to retry after a random delay for this reason:
 * redis.io/docs/latest/develop/use/patterns/distributed-locks). On one hot key with 64 callers in
 * four processes that made three attempts and ~76 Redis commands per handoff.
 *
 * A woken head instead sends its attempt to one master first, the same master for a key in every
 * process (the masters sorted by address, the key's hash picking one), and to the others only once
 * that master granted it. The gate grants one head; the rest are refused there for one command
 * each, and only the head that passed the gate asks the others, so a release hands over without
 * a split.
 *
 * Safety is Redlock's own: the gate's grant is one vote among N, the attempt is won only at a
 * quorum, and its validity counts from the moment it was sent to the gate (the first write). A
 * gate that cannot answer (down, erroring) is no arbiter: the attempt goes to the others as if
 * ungated. Liveness: only attempts a wake-up brings forward are gated. The retry schedule's own
 * attempts go to every master at once, so a gate holding a stale key (a master that missed a
 * release) costs a waiter at most one retry slot, never its acquisition. Processes that list their
 * masters under different addresses pick different gates and fall back to racing, as before.
 */

import { AGAINST, Attempt, PENDING } from '../engine/attempt.js';
import { OP_GATED } from '../protocol/batch-script.js';

/** The masters' indexes, ordered by name: the same order in every process listing the same masters. */
export function gateOrder(names: readonly string[]): readonly number[] {
  return names.map((name, index) => ({ name, index })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.index - b.index)).map((entry) => entry.index);
}

/** The gate of a lock whose first key is `key`: FNV-1a of the key over `order`. */
export function gateOf(order: readonly number[], key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return order[(hash >>> 0) % order.length]!;
}

/**
 * A gated attempt's call to its gate: the `G` operation (take the lock in turn, src/waiting/
 * turns.ts) with the gate's queue as one more key. Its clock is its attempt's, and each answer it
 * gets is the attempt's vote from the gate — a grant counts as the attempt's keys set, a refusal
 * keeps its reply (0 held, -1 another's turn) in the attempt's counts — so the attempt's quorum,
 * validity and undo read as if it had been sent to the gate itself.
 */
export class GateProbe extends Attempt {
  constructor(
    readonly main: Attempt,
    queue: string,
    extra: string,
    /** Sends `main` to the masters past the gate (those it has not yet voted on). */
    readonly pass: (main: Attempt) => void,
  ) {
    super(OP_GATED, [...main.keys, queue], main.token, main.ttlArg, 1, main.start, main.budget, false, main.size);
    this.extra = extra;
  }

  /**
   * The gate's answer is the attempt's vote there. Refused, the other masters are not asked (they
   * count against, as masters a release skips do); otherwise — granted, or failed, when the gate
   * is no arbiter — they are sent the attempt now.
   */
  override settle(node: number, reply: number | Error): void {
    if (this.votes[node] !== PENDING) return;
    super.settle(node, reply);
    const main = this.main;
    main.settle(node, reply === 1 ? main.keys.length : reply);
    if (main.votes[node] !== AGAINST) {
      this.pass(main);
      return;
    }
    for (let i = 0; i < main.votes.length; i++) if (main.votes[i] === PENDING) main.skip(i);
  }

  override sent(now: number): void {
    super.sent(now);
    this.main.sent(now);
  }

  override discount(node: number): void {
    super.discount(node);
    this.main.discount(node);
  }

  override expire(): void {
    super.expire();
    this.main.expire();
  }
}
