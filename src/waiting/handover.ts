import type { Attempt } from '../engine/attempt.js';
import type { MasterSet } from '../engine/masters.js';
import { OP_HANDOVER } from '../protocol/opcodes.js';
import { createToken } from '../protocol/token.js';
import type { Ticket } from './ticket.js';
import type { Waiters } from './waiters.js';

/**
 * A lock released while a local caller waits for exactly its resources is handed to it in one owner-checked write
 * per master (op H), or passed as it stands when it still has about the validity asked for: one round trip or none,
 * where a release and a race cost three. Why it is safe, fair, and when a pass is allowed: docs/decisions/0012,
 * "handover.ts".
 */

/** A plain mutex being released, as a handover sees it (src/lifecycle/release.ts describes its Lock so). */
export interface Outgoing {
  readonly resources: readonly string[];
  /** Its token. */
  readonly value: string;
  /** performance.now() until which it is valid. */
  readonly validUntil: number;
  /** Whether its validity stands as written: no extension in flight, and auto-extended or never extended. */
  readonly stands: boolean;
  /** performance.now() when the chain of handovers that led to it began; 0: taken from the masters. */
  readonly chain: number;
}

/** Whether `lock`, about to be handed to `heir`, can be passed to it without a write (see above). */
export function passable(lock: Outgoing, heir: Ticket): boolean {
  return lock.stands
    && lock.validUntil - performance.now() >= heir.terms!.least;
}

/** The waiter a releasing `lock` (valid until `expires`, epoch ms) can go to, reserved for it; or undefined. */
export function heirOf(waiters: Waiters, lock: Outgoing, expires: number): Ticket | undefined {
  const head = waiters.headOf(lock.resources);
  if (head === undefined || head.terms === undefined || head.reserved || !head.sleeping || expires <= Date.now()) return undefined;
  // The handover with a write is a script: where a member runs none, only a lock passed as it stands is handed.
  if (!waiters.scripting() && !passable(lock, head)) return undefined;
  // A lock taken from the masters starts a chain with this, its first handover.
  const chain = lock.chain === 0 ? performance.now() : lock.chain;
  if (head.joined >= chain) return undefined;
  head.reserve(chain);
  return head;
}

/** Sends the handover of `lock` to `heir`: the attempt that wins the keys for a new token. */
export function handOver(masters: MasterSet, lock: Outgoing, heir: Ticket): Attempt {
  const terms = heir.terms!;
  return masters.execute(OP_HANDOVER, lock.resources, createToken(), terms.ttlArg, terms.budget, 0, lock.value);
}
