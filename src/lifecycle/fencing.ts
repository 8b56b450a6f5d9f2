import { within } from '../util/time.js';
import { clusterCounterKey } from '../transport/cluster/slots.js';
import type { Attempt } from '../engine/attempt.js';
import type { MasterSet } from '../engine/masters.js';
import { OP_RAISE } from '../protocol/opcodes.js';
import { FENCE_RETENTION_MS } from '../protocol/batch-script.js';

/**
 * Fencing tokens across the quorum: the storage rejects a holder paused past its lease once a
 * newer holder wrote (Kleppmann, "How to do distributed locking", martin.kleppmann.com/2016/02/08/how-to-do-distributed-locking.html).
 *
 * Construction: the acquire script INCRs one counter per resource on every master it locks and
 * answers the largest value; the client takes f = the largest over its quorum. Before the
 * acquisition counts as successful, it raises the counters on a majority to at least f, where
 * each master votes "for" only if its counter was below f; if a master answers a counter ≥ f,
 * f becomes that + 1 and the raise is repeated.
 *
 * Why it is increasing: let A succeed with fence f_A, so some majority M_A holds counters ≥ f_A
 * when A's success is decided. A later holder B can only win after A's keys are gone from a
 * master of A's lock majority, i.e. after A released or its keys expired — after A succeeded, so
 * after M_A was raised. B's raise is sent after B won, so it reaches every master after M_A's
 * raise; B's raise majority meets M_A in some master whose counter was ≥ f_A, and B only succeeds
 * with votes "counter < f_B" from a majority, so f_A ≤ that counter < f_B. (Taking the largest
 * INCR of B's quorum alone is not enough: B's INCR on a master outside A's lock majority may
 * run before A's raise reached it.)
 *
 * Assumptions: a master never loses an acknowledged write (fsync on every write, or a crashed
 * master stays down longer than the largest lock duration: Redlock's delayed restart, redis.io/docs/latest/develop/use/patterns/distributed-locks) and Redis
 * keys expire no earlier than their TTL. Counters expire 7 days after last use; one created again
 * starts from the master's clock in µs, so tokens keep increasing as long as a resource sees fewer
 * than one acquisition per µs and no master's clock steps back by more than those 7 days. A master
 * restarted empty (the delayed restart keeps the lock keys safe, not the counters) re-creates its
 * counters the same way, so the masters' wall clocks must agree to within the time it stayed down:
 * the simulation, given clocks up to 1,000 s apart, saw fences fall after every master had
 * restarted (sim/README.md); NTP keeps them within milliseconds.
 */
export function counterKeys(resources: readonly string[], clustered = false): string[] {
  // On a Redis Cluster member the counter must share its resource's slot (src/transport/cluster/slots.ts).
  if (clustered) return resources.map(clusterCounterKey);
  return resources.map((resource) => `pipelock:fence:${resource}`);
}

const RAISE_ROUNDS = 5;
/** The least a won raise from the clock waits for the masters still out, in ms. */
const kStragglerMinMs = 20;

/** How a raise is made. */
export interface RaiseOptions {
  /** Shown the raise that failed (no quorum): it may throw a permanent error instead. */
  readonly failed?: (raise: Attempt) => void;
  /** The first target is a clock reading (an election's term), not a value this call's own INCR made. */
  readonly fromClock?: boolean;
}

/**
 * Raises the counters to a value a majority had below it; that value is the fence, or undefined if
 * no quorum answered. A raise won while some master answered a counter above the target (a quorum
 * of masters restarted empty, their counters lost) is raised again above it, so a fence never
 * falls below one a surviving master saw. `fromClock`: a won raise waits a little for the masters
 * still out (twice what the quorum took) to see that. A counter equal to the target is another's (an earlier term), except at
 * the fenced acquire's first target, the largest counter its own INCR made.
 */
export async function raiseFence(masters: MasterSet, counters: readonly string[], first: number, budget: number, options?: RaiseOptions): Promise<number | undefined> {
  let fence = first;
  for (let round = 0; round < RAISE_ROUNDS; round++) {
    const raise = masters.execute(OP_RAISE, counters, String(fence), String(FENCE_RETENTION_MS), budget, fence);
    await raise.done;
    const fromClock = options?.fromClock === true;
    // The masters still out may be survivors with a higher counter: they get twice what the quorum
    // took (a paused one is not waited for, so a campaign costs no node timeout; terms then rest on
    // the campaigners' clocks, docs/lock-kinds.md).
    if (raise.won && fromClock) await within(raise.whenComplete(), Math.min(budget, Math.max(kStragglerMinMs, 2 * (performance.now() - raise.start))));
    // Equal is this call's own INCR only at the fenced acquire's first target.
    if (raise.won && (fromClock || round > 0 ? raise.value < fence : raise.value <= fence)) return fence;
    // Someone holds a counter at or above ours: go above it. Otherwise masters failed: give up.
    if (raise.value < fence) {
      options?.failed?.(raise);
      return undefined;
    }
    fence = raise.value + 1;
  }
  return undefined;
}
