import '../helpers/setup.js';
import { setTimeout as delay } from 'node:timers/promises';
import * as assert from 'uvu/assert';
import { mastersSuite } from '../helpers/masters.js';
import { closeAll, connectAll, eventually, valuesOf } from '../helpers/redis.js';
import { rejection } from '../helpers/reject.js';
import { timed } from '../helpers/timeout.js';
import { Redlock } from '../../src/index.js';
import { internals } from '../../src/redlock.js';

// Found by the simulation (npm run simulate, scenario mutex, seed 3): an extension shorter than the
// validity left shortens the keys on every master that runs it, whatever the quorum answers, so
// the lock's validity must drop to the shorter one as it is sent, not only if it succeeds.
const test = mastersSuite('extend to a shorter duration', { count: 3, healEach: true, flushEach: true });

test('while the extension is out, and after it fails, the lock claims no more than the shorter duration', timed(8000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { retryCount: 0, nodeTimeout: 1000 });
  try {
    await eventually(() => internals(redlock).masters.nodes.every((node) => node.transport.isReady), 5000, 'connected');
    const lock = await redlock.acquire(['shorter'], 10_000);
    masters.masters[1]!.pause();
    masters.masters[2]!.pause();
    const extending = rejection(redlock.extend(lock, 300));
    await delay(50);
    // Master 0 has already cut the key to 300 ms: the lock is valid for at most that.
    assert.ok(lock.validity <= 300, `validity ${lock.validity} ms while a 300 ms extension is out`);
    await delay(400);
    const probes = await connectAll([masters.urls[0]!]);
    assert.equal(await valuesOf(probes, 'shorter'), [null]);
    await closeAll(probes);
    masters.masters[1]!.resume();
    masters.masters[2]!.resume();
    await extending;
    assert.is(lock.validity, 0);
  } finally {
    await redlock.quit();
  }
}));

test.run();
