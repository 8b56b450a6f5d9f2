import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { mastersSuite } from '../helpers/masters.js';
import { closeAll, connectAll, type Probe } from '../helpers/redis.js';
import { rejection } from '../helpers/reject.js';
import { timed } from '../helpers/timeout.js';
import { InvalidArgumentError, LockAbortedError, Redlock, RedlockClosedError } from '../../src/index.js';

// Every bad input gets its typed error naming the argument, and writes nothing to any master.
const test = mastersSuite('bad input', { count: 3 });

let probes: Probe[] = [];
let redlock: Redlock;
test.before(async ({ masters }) => {
  probes = await connectAll(masters.urls);
  redlock = new Redlock(masters.urls);
  await redlock.ready();
});
test.after(async () => {
  await redlock.quit();
  await closeAll(probes);
});
test.after.each(async () => {
  for (const probe of probes) assert.is(await probe.dbSize(), 0, 'a bad input left a key behind');
});

function throwsInvalid(fn: () => unknown, argument: string): void {
  try {
    fn();
  } catch (error) {
    if (!(error instanceof InvalidArgumentError)) throw new Error(`expected InvalidArgumentError for ${argument}`, { cause: error });
    assert.is(error.argument, argument);
    return;
  }
  assert.unreachable(`expected InvalidArgumentError for ${argument}`);
}

test('constructor: clients must be a non-empty list of open clients or redis URLs, without repeats', timed(5000, async ({ masters }) => {
  throwsInvalid(() => new Redlock(undefined as never), 'clients');
  throwsInvalid(() => new Redlock('redis://127.0.0.1:1' as never), 'clients');
  throwsInvalid(() => new Redlock([]), 'clients');
  throwsInvalid(() => new Redlock(['http://127.0.0.1:1']), 'clients[0]');
  throwsInvalid(() => new Redlock([masters.urls[0]!, 'not a url']), 'clients[1]');
  throwsInvalid(() => new Redlock([masters.urls[0]!, 42 as never]), 'clients[1]');
  throwsInvalid(() => new Redlock([masters.urls[0]!, masters.urls[0]!]), 'clients[1]');
  const [closed] = await connectAll([masters.urls[0]!]);
  await closeAll([closed!]);
  throwsInvalid(() => new Redlock([closed!]), 'clients[0]');
  throwsInvalid(() => new Redlock(masters.urls, { retryCount: -2 }), 'settings.retryCount');
  throwsInvalid(() => new Redlock(masters.urls, { driftFactor: NaN }), 'settings.driftFactor');
  throwsInvalid(() => new Redlock(masters.urls, { nodeTimeout: 0 }), 'settings.nodeTimeout');
  throwsInvalid(() => new Redlock(masters.urls, { bogus: 1 } as never), 'settings.bogus');
}));

const BAD_ACQUIRE: [unknown, unknown, unknown, string][] = [
  [undefined, 1000, undefined, 'resources'],
  ['key', 1000, undefined, 'resources'],
  [[], 1000, undefined, 'resources'],
  [[''], 1000, undefined, 'resources[0]'],
  [['a', 7], 1000, undefined, 'resources[1]'],
  [['a', 'a'], 1000, undefined, 'resources[1]'],
  [['a'], 0, undefined, 'duration'],
  [['a'], -5, undefined, 'duration'],
  [['a'], 1.5, undefined, 'duration'],
  [['a'], NaN, undefined, 'duration'],
  [['a'], Infinity, undefined, 'duration'],
  [['a'], '1000', undefined, 'duration'],
  [['a'], 2 ** 60, undefined, 'duration'],
  [['a'], 1000, null, 'settings'],
  [['a'], 1000, { retryCount: 'many' }, 'settings.retryCount'],
  [['a'], 1000, { retryDelay: -1 }, 'settings.retryDelay'],
  [['a'], 1000, { signal: 'stop' }, 'settings.signal'],
  [['a'], 1000, { chunkSize: 3 }, 'settings.chunkSize'],
];
for (const [resources, duration, settings, argument] of BAD_ACQUIRE) {
  test(`acquire(${JSON.stringify(resources)}, ${String(duration)}, ${JSON.stringify(settings)}) → InvalidArgumentError(${argument})`, async () => {
    const error = await rejection(redlock.acquire(resources as never, duration as never, settings as never), InvalidArgumentError);
    assert.is(error.argument, argument);
    assert.is(error.code, 'ERR_PIPELOCK_INVALID_ARGUMENT');
  });
}

test('acquire with an already-aborted signal: LockAbortedError, nothing sent', async () => {
  const controller = new AbortController();
  controller.abort(new Error('no'));
  const error = await rejection(redlock.acquire(['a'], 1000, { signal: controller.signal }), LockAbortedError);
  assert.is((error.cause as Error).message, 'no');
  assert.is(error.attempts.length, 0);
});

test('release / extend: only Locks of this Redlock; extend checks its duration', timed(5000, async ({ masters }) => {
  const other = new Redlock(masters.urls);
  try {
    const foreign = await other.acquire(['foreign'], 1000);
    assert.is((await rejection(redlock.release(foreign), InvalidArgumentError)).argument, 'lock');
    assert.is((await rejection(redlock.release({ resources: ['x'], value: 'y' } as never), InvalidArgumentError)).argument, 'lock');
    assert.is((await rejection(redlock.extend(foreign, 1000), InvalidArgumentError)).argument, 'lock');
    assert.is((await rejection(foreign.extend(-1), InvalidArgumentError)).argument, 'duration');
    await (await foreign.release()).complete();
  } finally {
    await other.quit();
  }
}));

test('using: routine must be a function; duration must exceed the extension threshold by 100 ms', async () => {
  assert.is((await rejection(redlock.using(['u'], 1000, {} as never), InvalidArgumentError)).argument, 'routine');
  assert.is((await rejection(redlock.using(['u'], 550, () => Promise.resolve()), InvalidArgumentError)).argument, 'duration');
  assert.is((await rejection(redlock.using(['u'], 1000, { retryCount: 1.5 }, () => Promise.resolve()), InvalidArgumentError)).argument, 'settings.retryCount');
});

test('every call after quit(): RedlockClosedError', timed(5000, async ({ masters }) => {
  const closing = new Redlock(masters.urls);
  const lock = await closing.acquire(['q'], 1000);
  await (await lock.release()).complete();
  await closing.quit();
  await closing.quit(); // idempotent
  assert.instance(await rejection(closing.acquire(['q'], 1000)), RedlockClosedError);
  assert.instance(await rejection(lock.release()), RedlockClosedError);
  assert.instance(await rejection(lock.extend(1000)), RedlockClosedError);
  assert.instance(await rejection(closing.using(['q'], 1000, () => Promise.resolve())), RedlockClosedError);
}));

test.run();
