import type { Attempt } from '../engine/attempt.js';
import { kChain, kExtending, kOps, kRenewal, MUTEX_OPS, type Lock } from './lock.js';
import type { MasterSet } from '../engine/masters.js';
import { OP_HANDOVER } from '../protocol/opcodes.js';
import { createToken } from '../protocol/token.js';
import type { Ticket } from '../waiting/ticket.js';
import type { Waiters } from '../waiting/waiters.js';

/**
 * A lock released while a local caller waits for exactly its resources is handed to it in one owner-checked write
 * per master (op H), or passed as it stands when it still has about the validity asked for: one round trip or none,
 * where a release and a race cost three. Why it is safe, fair, and when a pass is allowed: docs/decisions/0012,
 * "handover.ts".
 */

/** Whether `lock`, about to be handed to `heir`, can be passed to it without a write (see above). */
export function passable(lock: Lock, heir: Ticket): boolean {
  return lock[kExtending] === 0 && (lock[kRenewal] !== undefined || lock.extensions === 0)
    && lock.validUntil - performance.now() >= heir.terms!.least;
}

/** The waiter a releasing `lock` (valid until `expires`, epoch ms) can go to, reserved for it; or undefined. */
export function heirOf(waiters: Waiters | undefined, lock: Lock, expires: number): Ticket | undefined {
  if (waiters === undefined || lock[kOps] !== MUTEX_OPS) return undefined;
  const head = waiters.headOf(lock.resources);
  if (head === undefined || head.terms === undefined || head.reserved || !head.sleeping || expires <= Date.now()) return undefined;
  // The handover with a write is a script: where a member runs none, only a lock passed as it stands is handed.
  if (!waiters.scripting() && !passable(lock, head)) return undefined;
  // A lock taken from the masters starts a chain with this, its first handover.
  const chain = lock[kChain] === 0 ? performance.now() : lock[kChain];
  if (head.joined >= chain) return undefined;
  head.reserved = true;
  head.chain = chain;
  return head;
}

/** Sends the handover of `lock` to `heir`: the attempt that wins the keys for a new token. */
export function handOver(masters: MasterSet, lock: Lock, heir: Ticket): Attempt {
  const terms = heir.terms!;
  return masters.execute(OP_HANDOVER, lock.resources, createToken(), terms.ttlArg, terms.budget, 0, lock.value);
}
