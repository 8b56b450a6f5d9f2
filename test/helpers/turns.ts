import { setTimeout as delay } from 'node:timers/promises';
import type { Redlock } from '../../src/index.js';

/** How long a holder waits for the others' heads to line up before it releases anyway. */
const kLineUpMs = 2000;

/** Resolves once `queued()` (the heads in line at the gate) reaches `heads`, or after kLineUpMs. */
async function lineUp(queued: () => Promise<number>, heads: number): Promise<void> {
  const until = performance.now() + kLineUpMs;
  while (heads > 0 && performance.now() < until && (await queued()) < heads) await delay(1);
}

/**
 * Two callers per Redlock (one per "process") loop acquire → hold → release on `resource` until
 * `total` acquisitions are made; answers each Redlock's count. A holder holds 2 ms and, given
 * `queued` (the number of heads in the turns at the lock's gate), until every other process still
 * taking turns has its head in line: each handoff then follows the queue's order, not which
 * process a loaded machine's scheduler happened to run first (a first in line that is late by more
 * than the gate's bypass loses the handoff, by design). The hot-lock turns check of
 * test/integration/gate.test.ts and cluster-waiting.test.ts.
 */
export async function takeTurns(redlocks: readonly Redlock[], resource: string, total: number, queued?: () => Promise<number>): Promise<number[]> {
  const counts = redlocks.map(() => 0);
  const callers = redlocks.map(() => 2);
  let made = 0;
  await Promise.all(redlocks.flatMap((redlock, p) => [0, 1].map(async () => {
    while (made < total) {
      const lock = await redlock.acquire([resource], 10000);
      counts[p]!++;
      made++;
      await delay(2);
      if (queued !== undefined) await lineUp(queued, callers.filter((left, q) => q !== p && left > 0).length);
      await lock.release();
    }
    callers[p]!--;
  })));
  return counts;
}
