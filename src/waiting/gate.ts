/**
 * The gate: one master, the same for a key in every process, that orders the callers a release wakes. Woken heads
 * send their attempt there first and to the others only once granted, so a release hands over without a split vote.
 * Safety is Redlock's own (the gate is one vote of N); why, and the liveness argument: docs/decisions/0012, "gate.ts".
 */

import { randomBytes } from 'node:crypto';
import { AGAINST, Attempt, PENDING } from '../engine/attempt.js';
import type { MasterSet } from '../engine/masters.js';
import { OP_ACQUIRE, OP_GATED } from '../protocol/opcodes.js';
import { createToken } from '../protocol/token.js';
import type { KeyNames } from '../engine/keys.js';

/** The masters' indexes, ordered by name: the same order in every process listing the same masters. */
export function gateOrder(names: readonly string[]): readonly number[] {
  return names.map((name, index) => ({ name, index })).sort((a,
    b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.index - b.index)).map((entry) => entry.index);
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
 * A gated attempt's call to its gate (op `G`, with the gate's turns as one more key): each answer is the attempt's
 * vote from the gate, so its quorum, validity and undo read as if it had been sent there.
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
   * The gate's answer is the attempt's vote there. Refused, the others are not asked (they count against);
   * granted or failed (no arbiter), they are sent the attempt now.
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
 * Turns: heads waiting for a lock, one per process, queue first come, first served at its gate (op `G`), since
 * Redis pushes invalidations in client-id order and the first connected process won most releases. A dead or
 * stalled first loses its place after kGraceMs (docs/decisions/0012, "gate.ts — turns").
 */

/** How long the first in line has to come for a free lock before it loses its place, ms. */
export const kGraceMs = 50;
/**
 * How long a free lock waits for the first in line before anyone may take it, ms: a descheduled first would
 * otherwise keep the lock idle (a convoy).
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
 * The key of the turns at the gate of the lock whose first resource is `resource`, under the key prefix and in the
 * lock key's slot. (pipelock:queue: predates the word "turns" and stays, as a key format.)
 */
export function turnsKey(names: KeyNames, resource: string, clustered: boolean): string {
  return names.beside('pipelock:queue:', resource, clustered);
}

/** How long a free lock waits at the gate for the first in line, ms: a `turn` wait's grace, else kBypassMs. */
export function bypassOf(graceMs?: number): number {
  return graceMs ?? kBypassMs;
}

/**
 * The `G` operation's extra argument: bypass and grace in µs, then the head's id. A `turn` wait (an election) is
 * gated at every attempt and its first keeps the lock for `graceMs`, no bypass: order over speed.
 */
export function turnArgs(id: string, graceMs?: number): string {
  if (graceMs === undefined) return kTurnHead + id;
  const grace = Math.round(graceMs * 1000);
  return `${grace} ${grace} ${id}`;
}

/** A woken mutex acquisition sent to master `gate` first, in its turn there, and to the others once granted or unanswered. */
export function sendGated(masters: MasterSet, gate: number, keys: readonly string[], ttlArg: string, budget: number, turns: string,
  turn: string, graceMs?: number): Attempt {
  masters.assertOpen();
  const attempt = masters.attempt(OP_ACQUIRE, keys, createToken(), ttlArg, budget, false);
  masters.enqueueOn(gate, new GateProbe(attempt, turns, turnArgs(turn, graceMs), masters));
  return attempt;
}
