import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { mastersSuite } from '../helpers/masters.js';
import { timed } from '../helpers/timeout.js';
import { Redlock } from '../../src/index.js';

// The lock lifecycle's own state is not reachable from what a user holds: no ordinary property of a
// Lock, a ReleaseResult or a Redlock carries it (src/lifecycle/lock.ts keeps it under module symbols).
const test = mastersSuite('internals are not reachable', { count: 3 });

test('a Lock, its ReleaseResult and the Redlock show only their public fields', timed(10_000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls);
  try {
    const lock = await redlock.acquire(['internals'], 5000, { autoExtend: true });
    assert.equal(Object.keys(lock).sort(), ['expiration', 'fence', 'redlock', 'resources', 'value']);
    for (const name of ['held', 'ops', 'chain', 'extending', 'passedOn', 'renewed', 'lost', 'attemptCompleted']) {
      assert.not.ok(name in lock, `lock.${name} is reachable`);
    }
    // Its internals are symbol-keyed, and none of those symbols is exported by the package.
    const symbols = Object.getOwnPropertySymbols(lock).map((symbol) => symbol.description);
    assert.ok(symbols.every((description) => description?.startsWith('pipelock.') === true), symbols.join(', '));
    const result = await lock.release();
    assert.equal(Object.keys(result).sort(), ['expired', 'passedOn']);
    const own = Object.keys(redlock).filter((key) => !key.startsWith('_'));
    assert.equal(own, ['settings']);
    for (const name of ['masters', 'acquireKind', 'renewals', 'waiters']) assert.not.ok(name in redlock, `redlock.${name} is reachable`);
  } finally {
    await redlock.quit();
  }
}));

test.run();
