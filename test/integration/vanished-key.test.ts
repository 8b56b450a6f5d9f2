import '../helpers/setup.js';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import * as assert from 'uvu/assert';
import { mastersSuite } from '../helpers/masters.js';
import { closeAll, connectAll, eventually, valuesOf } from '../helpers/redis.js';
import { timed } from '../helpers/timeout.js';
import { LockLostError, Redlock } from '../../src/index.js';
import { RENEWAL_CHANNEL, type RenewalMessage } from '../../src/metrics/index.js';

// docs/decisions/0009-no-reseed.md: a key that vanished from a minority is not re-created by the
// renewals; the lock goes on on the quorum that still holds it, and is lost when none does.
const test = mastersSuite('a key vanished from a minority of masters', { count: 3, flushEach: true });

test('the lock is renewed on the others, not re-seeded, and lost when a second key goes', timed(10_000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls);
  const probes = await connectAll(masters.urls);
  let renewed = 0;
  const onRenewal = (message: unknown): void => { if ((message as RenewalMessage).renewed) renewed++; };
  subscribe(RENEWAL_CHANNEL, onRenewal);
  try {
    const lock = await redlock.acquire(['vanish'], 1500, { autoExtend: true });
    await probes[0]!.del('vanish');
    await eventually(() => renewed >= 2, 4000, 'two renewals');
    assert.equal(await valuesOf(probes, 'vanish'), [null, lock.value, lock.value]);
    assert.is(lock.signal!.aborted, false);
    await probes[1]!.del('vanish');
    await eventually(() => lock.signal!.aborted, 3000, 'the lock reported lost');
    assert.instance(lock.signal!.reason, LockLostError);
  } finally {
    unsubscribe(RENEWAL_CHANNEL, onRenewal);
    await closeAll(probes);
    await redlock.quit();
  }
}));

test.run();
