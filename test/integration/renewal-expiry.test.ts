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

test('a holder whose event loop was blocked past its lock\'s validity reads its signal aborted at its first look, before any timer ran: in using() and on an autoExtend lock', timed(15_000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { retryCount: 0 });
  const block = (until: number): void => { while (performance.now() < until) { /* a GC pause, a stopped VM */ } };
  try {
    const lock = await redlock.acquire(['blocked'], 1000, { autoExtend: true });
    const signal = lock.signal!;
    assert.is(signal.aborted, false);
    // Blocked synchronously from before the renewal was due to past the validity: no timer can run.
    block(lock.validUntil + 100);
    assert.ok(signal.aborted, 'aborted at the first look after the block');
    assert.instance(signal.reason, LockLostError);
    assert.throws(() => { signal.throwIfAborted(); }, (error: unknown) => error instanceof LockLostError);
    let seen: boolean | undefined;
    // using() may report the loss once the routine returns; what matters is what the routine saw.
    await redlock.using(['blocked-using'], 1000, async (routineSignal) => {
      block(performance.now() + 1200);
      seen = routineSignal.aborted;
      await Promise.resolve();
    }).catch(() => undefined);
    assert.is(seen, true, 'the routine read its signal aborted after the block');
  } finally {
    await redlock.quit();
  }
}));

test.run();
