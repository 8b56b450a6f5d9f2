import { setTimeout as delay } from 'node:timers/promises';
import type { Redlock } from '../../src/index.js';

/**
 * Two callers per Redlock (one per "process") loop acquire → hold 2 ms → release on `resource`
 * until `total` acquisitions are made; answers each Redlock's count. The hot-lock turns check of
 * test/integration/gate.test.ts and cluster-waiting.test.ts.
 */
export async function takeTurns(redlocks: readonly Redlock[], resource: string, total: number): Promise<number[]> {
  const counts = redlocks.map(() => 0);
  let made = 0;
  await Promise.all(redlocks.flatMap((redlock, p) => [0, 1].map(async () => {
    while (made < total) {
      const lock = await redlock.acquire([resource], 10000);
      counts[p]!++;
      made++;
      await delay(2);
      await lock.release();
    }
  })));
  return counts;
}
