import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { mastersSuite, probesEach } from '../helpers/masters.js';
import { eventually } from '../helpers/redis.js';
import { timed } from '../helpers/timeout.js';
import { InvalidArgumentError, LockLostError, LockRevokedError, Redlock, type RedlockOptions } from '../../src/index.js';
import { revokedKey } from '../../src/engine/keys.js';
import { abortedAt } from '../helpers/aborted.js';

// Issue 44: an operator takes a lock away from its holder in another process (a stuck job) with a
// reason, and the holder hears it: with watchHeld its signal aborts with LockRevokedError at once.
const test = mastersSuite('force-release', { count: 3, flushEach: true });
const probes = probesEach(test);


/** Until every master's watch connection tracks a key (the guard's first reads armed it). */
async function armed(): Promise<void> {
  await eventually(async () => {
    const lists = await Promise.all(probes.map((probe) => probe.sendCommand<string>(['CLIENT', 'LIST'])));
    return lists.every((list) => /flags=\S*t/.test(list));
  }, 3000, 'watch connections tracking');
  await new Promise((resolve) => setTimeout(resolve, 50));
}

for (const renewal of ['main', 'worker'] as const) {
  test(`renewal '${renewal}', watchHeld: the holder's signal aborts with LockRevokedError and the reason, long before its next renewal; the resource is free at once`, timed(20_000, async ({ masters }) => {
    const options: RedlockOptions = { watchHeld: true, renewal, retryCount: 0 };
    const holder = new Redlock(masters.urls, options);
    const operator = new Redlock(masters.urls, { retryCount: 0 });
    try {
      await Promise.all([holder.ready(), operator.ready()]);
      const lock = await holder.acquire(['stuck-job'], 10_000, { autoExtend: true });
      const signal = lock.signal!;
      await armed();
      const aborted = abortedAt(signal);
      const start = performance.now();
      const result = await operator.forceRelease(['stuck-job'], { reason: 'job 42 stuck for an hour' });
      const ran = performance.now();
      const at = await aborted;
      assert.equal(result, { masters: 3, held: true });
      assert.instance(signal.reason, LockRevokedError);
      assert.is((signal.reason as LockRevokedError).reason, 'job 42 stuck for an hour');
      assert.is((signal.reason as LockRevokedError).code, 'ERR_PIPELOCK_LOCK_REVOKED');
      // Its next renewal is seconds away: an abort within 250 ms of the call was the watch's.
      assert.ok(at - start < 250, `aborted ${(at - start).toFixed(1)} ms after the call (the call took ${(ran - start).toFixed(1)} ms)`);
      const next = await operator.acquire(['stuck-job'], 1000);
      await next.release();
    } finally {
      await holder.quit();
      await operator.quit();
    }
  }));
}

for (const renewal of ['main', 'worker'] as const) {
  test(`renewal '${renewal}', no watchHeld: the holder hears LockRevokedError with the reason at its next renewal, not a plain LockLostError`, timed(20_000, async ({ masters }) => {
    const holder = new Redlock(masters.urls, { renewal, retryCount: 0 });
    const operator = new Redlock(masters.urls, { retryCount: 0 });
    try {
      await Promise.all([holder.ready(), operator.ready()]);
      // 600 ms: renewed every ~400 ms, so its next renewal comes soon after the force-release.
      const lock = await holder.acquire(['stuck-job'], 600, { autoExtend: true });
      const signal = lock.signal!;
      const aborted = abortedAt(signal);
      const start = performance.now();
      await operator.forceRelease(['stuck-job'], { reason: 'job 43 stuck' });
      const at = await aborted;
      assert.instance(signal.reason, LockRevokedError, String(signal.reason));
      assert.is((signal.reason as LockRevokedError).reason, 'job 43 stuck');
      assert.is(signal.error, signal.reason);
      assert.ok(at - start < 600, `aborted ${(at - start).toFixed(1)} ms after the call: at its next renewal`);
    } finally {
      await holder.quit();
      await operator.quit();
    }
  }));
}

test("renewal 'worker': a holder that reads its signal before the worker's report arrived still gets the reason (the report is drained from its port at once)", timed(20_000, async ({ masters }) => {
  const holder = new Redlock(masters.urls, { renewal: 'worker', retryCount: 0 });
  const operator = new Redlock(masters.urls, { retryCount: 0 });
  try {
    await Promise.all([holder.ready(), operator.ready()]);
    const lock = await holder.acquire(['stuck-job'], 600, { autoExtend: true });
    await operator.forceRelease(['stuck-job'], { reason: 'job 44 stuck' });
    // The loop blocked past the worker's next renewal: its cell says REVOKED, its report is still unread.
    const until = performance.now() + 1500;
    while (performance.now() < until) { /* a synchronous stretch */ }
    const signal = lock.signal!;
    assert.is(signal.aborted, true);
    assert.instance(signal.reason, LockRevokedError, String(signal.reason));
    assert.is((signal.reason as LockRevokedError).reason, 'job 44 stuck');
  } finally {
    await holder.quit();
    await operator.quit();
  }
}));

for (const watchHeld of [false, true]) {
  test(`watchHeld ${String(watchHeld)}: the marker names the revoked token, so a later holder of the resource, lost within the marker's life, hears a plain LockLostError`, timed(20_000, async ({ masters }) => {
    const redlock = new Redlock(masters.urls, { watchHeld, retryCount: 0 });
    try {
      await redlock.ready();
      const first = await redlock.acquire(['job'], 10_000, { autoExtend: true });
      await redlock.forceRelease(['job'], { reason: 'job 45 stuck' });
      await abortedAt(first.signal!);
      assert.instance(first.signal!.reason, LockRevokedError);
      assert.is(await probes[0]!.get(revokedKey('job')), `${first.value}\njob 45 stuck`);
      // The next holder loses its keys another way (deleted behind its back) while the marker still stands.
      const next = await redlock.acquire(['job'], 600, { autoExtend: true });
      const signal = next.signal!;
      const aborted = abortedAt(signal);
      if (watchHeld) await armed();
      await Promise.all(probes.map((probe) => probe.del('job')));
      await aborted;
      assert.instance(signal.reason, LockLostError, String(signal.reason));
      assert.not.instance(signal.reason, LockRevokedError, String(signal.reason));
    } finally {
      await redlock.quit();
    }
  }));
}

test('forceRelease of keys nobody holds runs on every master and says so; bad options are refused by name', timed(10_000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { retryCount: 0 });
  try {
    await redlock.ready();
    assert.equal(await redlock.forceRelease(['nobody'], { reason: 'tidy' }), { masters: 3, held: false });
    assert.is(await probes[0]!.get(revokedKey('nobody')), null, 'nobody held it: no marker to tell anyone');
    const refused = async (options: unknown, argument: string): Promise<void> => {
      const error = await redlock.forceRelease(['k'], options as never).catch((e: unknown) => e);
      assert.ok(error instanceof InvalidArgumentError && error.argument === argument, String(error));
    };
    await refused(undefined, 'options');
    await refused({}, 'options.reason');
    await refused({ reason: '' }, 'options.reason');
    await refused({ reason: 'x', markerMs: 0 }, 'options.markerMs');
  } finally {
    await redlock.quit();
  }
}));

test.run();
