import '../helpers/setup.js';
import { setTimeout as delay } from 'node:timers/promises';
import * as assert from 'uvu/assert';
import { mastersSuite } from '../helpers/masters.js';
import { timed } from '../helpers/timeout.js';
import { Redlock, RedlockClosedError } from '../../src/index.js';

// quit() ends every waiting call at once with RedlockClosedError, whatever the call was doing: asleep in line, or
// between an attempt and its next sleep. An election test that failed on a loaded machine kept its process alive
// for ten minutes: a campaign that went to sleep after quit() looped on its retry schedule with nobody to wake it.
const test = mastersSuite('quit while waiting', { count: 3, healEach: true, flushEach: true });

/** Quits `redlock` and checks that each of `calls` then rejects with RedlockClosedError within a second. */
async function quitEnds(redlock: Redlock, calls: readonly Promise<unknown>[]): Promise<void> {
  const quitting = performance.now();
  await redlock.quit();
  for (const call of calls) {
    const error = await call.then(() => undefined, (e: unknown) => e);
    const ms = performance.now() - quitting;
    assert.instance(error, RedlockClosedError);
    assert.ok(ms < 1000, `ended ${ms.toFixed(0)} ms after quit()`);
  }
}

test('a call whose attempts meet errors (a majority stalled) and that sleeps after quit(): rejected at once, not retried on', timed(20_000, async ({ masters }) => {
  const holder = new Redlock(masters.urls);
  // Many retries, close together: only quit() can end this call in the test's time.
  const waiter = new Redlock(masters.urls, { retryCount: 1000, retryDelay: 2000, retryJitter: 0, nodeTimeout: 50 });
  try {
    // Held briefly: once it expires, the one master left answering grants, and attempts are lost to errors alone.
    await holder.acquire(['stuck'], 400);
    const calls = [waiter.acquire(['stuck'], 30_000), waiter.acquire(['stuck'], 30_000)];
    for (const call of calls) call.catch(() => undefined);
    await delay(100);
    // Two of three masters stall: every attempt now waits out its budget.
    masters.masters[1]!.pause();
    masters.masters[2]!.pause();
    // Past the hold's expiry and the next slot's attempt (2 s apart): asleep after an attempt lost to errors.
    await delay(2600);
    await quitEnds(waiter, calls);
  } finally {
    masters.masters[1]!.resume();
    masters.masters[2]!.resume();
    await holder.quit();
    await waiter.quit();
  }
}));

test('a call asleep in line (behind another of its process): rejected at once by quit()', timed(20_000, async ({ masters }) => {
  const holder = new Redlock(masters.urls);
  const waiter = new Redlock(masters.urls, { retryCount: 1000, retryDelay: 5000, retryJitter: 0 });
  try {
    await holder.acquire(['line'], 30_000);
    const calls = [0, 1, 2].map(() => waiter.acquire(['line'], 30_000));
    for (const call of calls) call.catch(() => undefined);
    await delay(300);
    await quitEnds(waiter, calls);
  } finally {
    await holder.quit();
  }
}));

test.run();
