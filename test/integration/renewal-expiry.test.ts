import '../helpers/setup.js';
import { setTimeout as delay } from 'node:timers/promises';
import * as assert from 'uvu/assert';
import { mastersSuite } from '../helpers/masters.js';
import { eventually } from '../helpers/redis.js';
import { timed } from '../helpers/timeout.js';
import { LockLostError, Redlock } from '../../src/index.js';
import { internals } from '../../src/redlock.js';

// Found by the simulation (npm run simulate, scenario mutex, seed 235): a renewal out to slow
// masters waited for its node timeout before the lock was reported lost, so a using() routine that
// looked at its signal after the lock's validity ran out (and before that timeout) acted on it.
const test = mastersSuite('renewal past the validity', { count: 3, healEach: true, flushEach: true });

test('an auto-extended lock whose renewal is unanswered aborts its signal when its validity runs out, not at the node timeout', timed(10_000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { retryCount: 0, nodeTimeout: 4000, automaticExtensionThreshold: 100 });
  try {
    await eventually(() => internals(redlock).masters.nodes.every((node) => node.transport.isReady), 5000, 'connected');
    const lock = await redlock.acquire(['renew-late'], 1000, { autoExtend: true });
    const signal = lock.signal!;
    masters.masters[1]!.pause();
    masters.masters[2]!.pause();
    const validUntil = lock.validUntil;
    await delay(Math.ceil(validUntil - performance.now()) + 50);
    assert.ok(signal.aborted, `signal not aborted ${(performance.now() - validUntil).toFixed(0)} ms after the lock's validity ran out`);
    assert.instance(signal.reason, LockLostError);
    assert.is(lock.validity, 0);
  } finally {
    masters.masters[1]!.resume();
    masters.masters[2]!.resume();
    await redlock.quit();
  }
}));

test.run();
