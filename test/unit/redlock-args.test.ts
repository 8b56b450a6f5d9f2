import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { fencedWrite, InvalidArgumentError, Lock, LockAbortedError, Redlock, RedlockClosedError, runOnce } from '../../src/index.js';
import { internals } from '../../src/redlock.js';
import { rejection, throwsInvalid } from '../helpers/reject.js';

// Checks that need no master: port 1 never answers, and nothing here waits for it.
const test = suite('redlock arguments');
const kNowhere = ['redis://127.0.0.1:1'];

test('constructor: settings must be an object, clientOptions too', () => {
  for (const bad of [null, 42, 'x', []]) throwsInvalid(() => new Redlock(kNowhere, bad as never), 'settings');
  for (const bad of [null, 42, 'tls']) throwsInvalid(() => new Redlock(kNowhere, { clientOptions: bad as never }), 'settings.clientOptions');
});

test('ready: timeoutMs must be a number ≥ 0; after quit it rejects at once instead of waiting', async () => {
  const redlock = new Redlock(kNowhere);
  try {
    for (const bad of ['5', NaN, -1, null]) assert.is((await rejection(redlock.ready(bad as never), InvalidArgumentError)).argument, 'timeoutMs');
  } finally {
    await redlock.quit();
  }
  const started = performance.now();
  await rejection(redlock.ready(), RedlockClosedError);
  await rejection(redlock.ready(60_000), RedlockClosedError);
  assert.ok(performance.now() - started < 1000);
});

test('extend with an already-aborted signal: LockAbortedError, as acquire, and nothing is sent', async () => {
  const redlock = new Redlock(kNowhere);
  try {
    const now = performance.now();
    const lock = new Lock(redlock, internals(redlock).masters, ['a'], 'token', [], now + 10_000, 0, now);
    const controller = new AbortController();
    controller.abort(new Error('gave up'));
    const error = await rejection(lock.extend(1000, { signal: controller.signal }), LockAbortedError);
    assert.is((error.cause as Error).message, 'gave up');
    assert.is(error.attempts.length, 0);
  } finally {
    await redlock.quit();
  }
});

test('runOnce names a redlock that is not a Redlock; fencedWrite a client that is not one, or closed', async () => {
  const options = { windowMs: 1000, leaseMs: 1000, maxAttempts: 1 };
  for (const bad of [null, {}, 'redis://127.0.0.1:1']) {
    assert.is((await rejection(runOnce(bad as never, 'job', options, () => Promise.resolve()), InvalidArgumentError)).argument, 'redlock');
  }
  const closed = { isOpen: false, sendCommand: () => Promise.reject(new Error('The client is closed')) };
  for (const bad of [null, {}, 'redis://127.0.0.1:1', closed]) {
    assert.is((await rejection(fencedWrite(bad as never, 'k', 1, 'v'), InvalidArgumentError)).argument, 'client');
  }
});

test.run();
