import { within } from '../util/time.js';
import { clusterCounterKey } from '../transport/cluster/slots.js';
import type { Attempt } from './attempt.js';
import type { MasterSet } from './masters.js';
import { OP_RAISE } from '../protocol/opcodes.js';
import { FENCE_RETENTION_MS } from '../protocol/batch-script.js';

/**
 * Fencing tokens across the quorum (Kleppmann, "How to do distributed locking"): the acquire script INCRs a counter
 * per resource, and the fence is raised on a majority before the acquisition succeeds. Why tokens only increase, and
 * what that assumes of the masters and their clocks: docs/decisions/0012, "fencing.ts".
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
 * Raises the counters to a value a majority had below it: the fence, or undefined without a quorum. A counter seen
 * above the target (masters restarted empty) is raised past; `fromClock` waits a little for the masters still out.
 * A counter equal to the target is another's, except at the fenced acquire's first target, its own INCR's.
 */
export async function raiseFence(masters: MasterSet, counters: readonly string[], first: number, budget: number,
  options?: RaiseOptions): Promise<number | undefined> {
  let fence = first;
  for (let round = 0; round < RAISE_ROUNDS; round++) {
    const raise = masters.execute(OP_RAISE, counters, String(fence), String(FENCE_RETENTION_MS), budget, fence);
    await raise.done;
    const fromClock = options?.fromClock === true;
    // The masters still out may be survivors with a higher counter: they get twice what the quorum
    // took (a paused one is not waited for, so a campaign costs no node timeout; terms then rest on
    // the campaigners' clocks, docs/lock-kinds.md).
    if (raise.won && fromClock)
      await within(raise.whenComplete(), Math.min(budget, Math.max(kStragglerMinMs, 2 * (performance.now() - raise.start))));
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
