import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { mastersSuite } from '../helpers/masters.js';
import { closeAll, connectAll, valuesOf, type Probe } from '../helpers/redis.js';
import { timed } from '../helpers/timeout.js';
import { Redlock } from '../../src/index.js';

// A caller's `signal` cancels waiting and retrying; once the lock is won it no longer governs it.
// Libraries that tie the release to the same signal skip the release when it has fired, leaving
// the key until its TTL: here the release still deletes it on every master.
const test = mastersSuite('a caller signal that fires after the lock was acquired', { count: 3, flushEach: true });

let redlock: Redlock;
let probes: Probe[];
test.before(async ({ masters }) => {
  redlock = new Redlock(masters.urls);
  probes = await connectAll(masters.urls);
});
test.after(async () => {
  await closeAll(probes);
  await redlock.quit();
});

for (const autoExtend of [false, true]) {
  test(`release() deletes the key on every master (autoExtend ${String(autoExtend)})`, timed(5000, async () => {
    const controller = new AbortController();
    const lock = await redlock.acquire(['fired'], 10_000, { signal: controller.signal, autoExtend });
    controller.abort(new Error('the caller gave up'));
    assert.equal(await valuesOf(probes, 'fired'), [lock.value, lock.value, lock.value]);
    const result = await (await lock.release()).complete();
    assert.is(result.expired, false);
    assert.is(result.released, 3);
    assert.equal(await valuesOf(probes, 'fired'), [null, null, null]);
  }));
}

test('using() ends by deleting the key on every master', timed(5000, async () => {
  const controller = new AbortController();
  let token = '';
  await redlock.using(['scoped'], 10_000, { signal: controller.signal }, async (signal) => {
    token = (await valuesOf(probes, 'scoped'))[0] ?? '';
    controller.abort(new Error('the caller gave up'));
    assert.is(signal.aborted, false, 'the lock is still held: its own signal is not the caller\'s');
  });
  assert.ok(token.length > 0);
  assert.equal(await valuesOf(probes, 'scoped'), [null, null, null]);
}));

test.run();
