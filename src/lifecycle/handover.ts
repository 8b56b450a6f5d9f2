import type { Attempt } from '../engine/attempt.js';
import { kChain, kExtending, kOps, kRenewal, MUTEX_OPS, type Lock } from './lock.js';
import type { MasterSet } from '../engine/masters.js';
import { OP_HANDOVER } from '../protocol/opcodes.js';
import { createToken } from '../protocol/token.js';
import type { Ticket } from '../waiting/ticket.js';
import type { Waiters } from '../waiting/waiters.js';

/**
 * A lock released while a caller of the same process waits for exactly its resources is handed
 * to that caller in one owner-checked operation per master (op H of the batch script): each key
 * that still holds the holder's token is set to a new token, the waiter's, with the waiter's TTL.
 * Released the usual way, the lock went to the masters (delete), a push told every process's
 * waiters, and they raced for it again (gate, then the other masters): three round trips and a
 * thread woken in each process, where a handover is one round trip.
 *
 * Why it is safe:
 * - The new holder's validity counts, as any acquisition's, from when the handover was sent: no
 *   master can set a key before it is sent, and it needs a quorum of masters that set it.
 * - The old holder's lock ends with the handover: its release() has been called (its renewals
 *   stopped first), and where its token is gone no later command of it can touch the keys, as
 *   every command is owner-checked.
 * - Anyone else still needs a quorum of keys absent, as with any holder.
 * - Refused or unanswered on a quorum (the lock had expired, or was lost), the new token is
 *   deleted wherever it may have been written, the old lock is released as usual, and the waiter
 *   wakes to try the masters. A waiter that gave up while its lock was on the way leaves it to the
 *   old holder's release, which deletes the new token (owner-checked) before it resolves.
 *
 * Fairness: a chain of handovers starts at its first one, and passes the lock only to callers that
 * joined before that moment. So a process serves the callers that were waiting when its holder
 * let go, one turn each, and then releases the lock to the other processes; a caller that comes
 * back for the lock waits for the next round, as it would in a FIFO queue. (Lock cohorting bounds
 * local handoffs the same way before passing a global lock on: Dice, Marathe and Shavit, "Lock
 * Cohorting: A General Technique for Designing NUMA Locks", PPoPP 2012.)
 *
 * Only plain mutexes (no fencing counters, no semaphore or read/write kinds) are handed over:
 * their waiters carry HandoverTerms (src/waiting/waiters.ts).
 *
 * Passing (no write at all): a lock that still has about the validity the waiter asked for is
 * passed to it as it stands — its token, its keys and their TTLs untouched, its validity the
 * holder's — as a cohort lock passes the global lock among local threads (Dice et al., above).
 * Nothing is sent, so nothing changes for the other processes either: their heads are not woken
 * by a handover they cannot take. Safety is the holder's own: the keys hold the token with the
 * TTLs that made `validUntil`, and only one Lock of this process answers for the token at a time:
 * - the holder's Lock is done: release() sends nothing for it again (`passedOn`), and extend()
 *   already refuses a released lock (its expiration is 0);
 * - no other Lock shares the token: extend() without autoExtend returns a new Lock with the same
 *   token and leaves the old one releasable (node-redlock's shape), so such a lock is handed over
 *   with a new token instead; an auto-extended lock is extended in place;
 * - no extend() of the holder is in flight (`extending`): a shorter PEXPIRE landing after the pass
 *   would cut the keys' TTLs below the validity the waiter was given. Renewals of an auto-extended
 *   lock re-arm its own duration, which only lengthens them.
 * The waiter asked for `duration`; it is passed the lock only while at least `least` of validity is
 * left (HandoverTerms): its duration less two drift allowances (Redlock's 2 ms + driftFactor ×
 * duration), about what an acquisition from the masters leaves it after its round trip. Below
 * that, the lock is handed over with a new token and the waiter's TTL, as above.
 */

/** Whether `lock`, about to be handed to `heir`, can be passed to it without a write (see above). */
export function passable(lock: Lock, heir: Ticket): boolean {
  return lock[kExtending] === 0 && (lock[kRenewal] !== undefined || lock.extensions === 0) && lock.validUntil - performance.now() >= heir.terms!.least;
}

/**
 * The waiter a releasing `lock` (valid until `expires`, epoch ms) can be handed to, reserved for
 * it (Ticket.receive ends that), or undefined: release as usual.
 */
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
