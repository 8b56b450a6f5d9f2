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

import { randomBytes } from 'node:crypto';
import { AGAINST, Attempt, PENDING } from '../engine/attempt.js';
import type { MasterSet } from '../engine/masters.js';
import { OP_ACQUIRE, OP_GATED } from '../protocol/opcodes.js';
import { createToken } from '../protocol/token.js';
import type { KeyNames } from '../engine/keys.js';

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
 * A gated attempt's call to its gate: the `G` operation (take the lock in turn, below) with the
 * gate's turns as one more key. Its clock is its attempt's, and each answer it
 * gets is the attempt's vote from the gate — a grant counts as the attempt's keys set, a refusal
 * keeps its reply (0 held, -1 another's turn) in the attempt's counts — so the attempt's quorum,
 * validity and undo read as if it had been sent to the gate itself.
 */
export class GateProbe extends Attempt {
  constructor(
    readonly main: Attempt,
    turns: string,
    extra: string,
    /** Where `main` goes past the gate (to the masters that have not voted on it yet). */
    readonly masters: Pick<MasterSet, 'sendToPending'>,
  ) {
    super(OP_GATED, [...main.keys, turns], main.token, main.ttlArg, 1, main.start, main.budget, false, main.size);
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
      this.masters.sendToPending(main);
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

  /** The gate is asked of one master: its budget running out there is the whole gate's, and the attempt's. */
  override timeOut(): void {
    this.expire();
  }
}

/**
 * Turns: the heads waiting for a lock, one per process, queue first come, first served at the
 * lock's gate (src/waiting/gate.ts; the `G` operation of src/protocol/batch-script.ts).
 *
 * The gate alone stops woken heads from splitting the quorum, but which head the gate grants is a
 * race: Redis pushes an invalidation to the tracking connections in the order of their client ids
 * (redis/src/tracking.c walks the key's rax of ids), so the process that connected first hears
 * every release first and wins most of them. On one hot key with 4 processes × 16 callers and a
 * 1 ms hold, the callers of one process made 37 acquisitions each and those of another 16 (Jain
 * fairness 0.90). So a refused head joins a queue on the gate, scored by its arrival on the gate's
 * clock, and the gate grants a free lock only to the queue's first: across processes the lock goes
 * round in arrival order (Redisson's fair lock keeps such a queue on its one Redis:
 * github.com/redisson/redisson/wiki/8.-distributed-locks-and-synchronizers#82-fair-lock).
 *
 * A head that dies or stalls must not hold the queue up: the first sighting of the lock free with
 * another head first marks the time, and a first that has not come for it within kGraceMs loses
 * its place. A head that gives up (aborted, out of retries) leaves the queue at once. Attempts of
 * the retry schedule stay ungated and ignore the queue, as a newcomer's first attempt does: the
 * queue orders those woken by releases, and a stalled queue costs a waiter at most its next slot.
 */

/** How long the first in line has to come for a free lock before it loses its place, ms. */
export const kGraceMs = 50;
/**
 * How long a free lock waits for the first in line before anyone may take it (the first keeps its
 * place), ms: a first whose process is descheduled would otherwise keep the lock idle for its whole
 * delay (a convoy), which on a busy machine halved the handoffs of a hot key.
 */
export const kBypassMs = 2;

const kTurnHead = `${kBypassMs * 1000} ${kGraceMs * 1000} `;

/** This process's prefix for its heads' ids in the queues: 64 random bits. */
const processId = randomBytes(8).toString('hex');
let count = 0;

/** A new head's id in the queues. */
export function turnId(): string {
  return `${processId}:${(++count).toString(36)}`;
}

/**
 * The key of the turns at the gate of the lock whose first resource is `resource`: under the
 * clients' key `prefix` (an ACL pattern for the prefix covers it), in the lock key's slot on a
 * cluster member. (Its name, pipelock:queue:, predates the word "turns" and stays, as a key format.)
 */
export function turnsKey(names: KeyNames, resource: string, clustered: boolean): string {
  return names.beside('pipelock:queue:', resource, clustered);
}

/**
 * The `G` operation's extra argument: the bypass and the grace in µs, then the head's id. A call
 * that waits in turn from its arrival (WaitMode `turn`: an election's campaign) goes to the gate at
 * every attempt, so it joins the turns with its first refusal, and the first in line keeps the lock
 * to itself for `graceMs` (no bypass): order over speed. A first that died costs the others `graceMs` once.
 */
export function turnArgs(id: string, graceMs?: number): string {
  if (graceMs === undefined) return kTurnHead + id;
  const grace = Math.round(graceMs * 1000);
  return `${grace} ${grace} ${id}`;
}

/**
 * A woken mutex acquisition sent to master `gate` first, in its turn (`turn`, this caller's id) in
 * the turns at `turns` there, and to the other masters once the gate granted it (or could not answer).
 */
export function sendGated(masters: MasterSet, gate: number, keys: readonly string[], ttlArg: string, budget: number, turns: string, turn: string, graceMs?: number): Attempt {
  masters.assertOpen();
  const attempt = masters.attempt(OP_ACQUIRE, keys, createToken(), ttlArg, budget, false);
  masters.enqueueOn(gate, new GateProbe(attempt, turns, turnArgs(turn, graceMs), masters));
  return attempt;
}
