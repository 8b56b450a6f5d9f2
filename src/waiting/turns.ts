import { randomBytes } from 'node:crypto';
import { sideKey } from '../transport/cluster/slots.js';

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
 * The queue of the lock whose first resource is `resource`: under the clients' key `prefix` (an
 * ACL pattern for the prefix covers it), in the lock key's slot on a cluster member.
 */
export function queueKey(prefix: string, resource: string, clustered: boolean): string {
  return sideKey(`${prefix}pipelock:queue:`, resource, clustered, prefix + resource);
}

/** The `G` operation's extra argument: the bypass and the grace in µs, then the head's id. */
export function turnArgs(id: string): string {
  return kTurnHead + id;
}

