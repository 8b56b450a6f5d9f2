import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { mastersSuite, probesEach } from '../helpers/masters.js';
import { commandCalls, eventually } from '../helpers/redis.js';
import { timed } from '../helpers/timeout.js';
import { QuorumUnreachableError, Redlock, ReentrantRedlock, type Lock } from '../../src/index.js';

// `await using` (TC39 explicit resource management) on every handle pipelock gives out.
const test = mastersSuite('dispose', { count: 3, flushEach: true, healEach: true });
const probes = probesEach(test);

let redlock: Redlock;
test.before(({ masters }) => {
  redlock = new Redlock(masters.urls, { retryCount: 0, nodeTimeout: 100 });
});
test.after(async () => {
  await redlock.quit();
});

/** Every key on the masters but fencing counters, the semaphore's release counter and an election's history (which outlive holders on purpose). */
async function keys(): Promise<string[]> {
  const all = (await Promise.all(probes.map((p) => p.keys('*')))).flat();
  return all.filter((key) => !key.startsWith('pipelock:fence:') && !key.endsWith(':permits-released') && !key.endsWith(':history')).sort();
}

/**
 * Waits for every key to go: a release is decided at the quorum, so the last master's delete may
 * still be on its way when the scope ends (a loaded CI machine showed it). A release that never
 * came leaves the keys for their whole TTL (5 s here), well past this wait.
 */
async function gone(what: string): Promise<void> {
  let left: string[] = [];
  await eventually(async () => (left = await keys()).length === 0, 1000, `${what} (left: ${left.join(', ')})`);
}

/** Runs one scope holding what `take` gives, then checks its keys are gone and a second dispose sends nothing. */
async function scoped(take: () => Promise<AsyncDisposable>): Promise<void> {
  let held: AsyncDisposable;
  {
    await using handle = await take();
    held = handle;
    assert.ok((await keys()).length > 0, 'held inside the scope');
  }
  await gone('released at the end of the scope');
  const before = await commandCalls(probes);
  await held[Symbol.asyncDispose]();
  assert.equal(await commandCalls(probes), before.map((n) => n + 0), 'a second dispose sends nothing');
}

test('mutex', timed(5000, () => scoped(() => redlock.acquire(['orders:42'], 5000))));
test('auto-extended mutex', timed(5000, () => scoped(() => redlock.acquire(['orders:43'], 5000, { autoExtend: true }))));
test('semaphore permit', timed(5000, () => scoped(() => redlock.semaphore('exports', 2).acquire(5000))));
test('read lock', timed(5000, () => scoped(() => redlock.readWriteLock('catalog').readLock(5000))));
test('write lock', timed(5000, () => scoped(() => redlock.readWriteLock('catalog').writeLock(5000))));
test('election term (dispose resigns)', timed(5000, () => scoped(() => redlock.election('leader', { lease: 3000 }).campaign())));
test('reentrant lock, nested scopes', timed(5000, async () => {
  const reentrant = new ReentrantRedlock(redlock);
  await reentrant.run(async () => {
    {
      await using outer = await reentrant.acquire(['acct:7'], 5000);
      {
        await using inner = await reentrant.acquire(['acct:7'], 5000);
        assert.is(inner.holders, 2);
      }
      assert.is(outer.holders, 1);
      assert.ok((await keys()).length > 0);
    }
    await gone('released at the end of the outer scope');
  });
}));

test('dispose after release() and of a lock extend() replaced', timed(5000, async () => {
  const lock = await redlock.acquire(['x'], 5000);
  await lock.release();
  await lock[Symbol.asyncDispose]();
  let first: Lock;
  {
    await using taken = await redlock.acquire(['y'], 5000);
    first = taken;
    const longer = await taken.extend(10_000);
    assert.is.not(longer, taken);
  }
  assert.is(first.expiration, 0);
  await gone('the extended lock went with the scope of the one it replaced');
}));

test('a scope that throws while the release fails too: both errors reach the caller', timed(10_000, async ({ masters }) => {
  const scopeError = new Error('the work failed');
  let caught: unknown;
  try {
    await using lock = await redlock.acquire(['z'], 5000);
    assert.ok(lock.validity > 0);
    await Promise.all([masters.masters[1]!.stop(), masters.masters[2]!.stop()]);
    throw scopeError;
  } catch (error) {
    caught = error;
  }
  const suppressed = caught as { error: unknown; suppressed: unknown; name: string };
  assert.is(suppressed.name, 'SuppressedError');
  assert.instance(suppressed.error, QuorumUnreachableError);
  assert.is(suppressed.suppressed, scopeError);
}));

test('a clean scope whose release fails throws the release\'s error', timed(10_000, async ({ masters }) => {
  let caught: unknown;
  try {
    await using lock = await redlock.acquire(['w'], 5000);
    assert.ok(lock.validity > 0);
    await Promise.all([masters.masters[1]!.stop(), masters.masters[2]!.stop()]);
  } catch (error) {
    caught = error;
  }
  assert.instance(caught, QuorumUnreachableError);
}));

test.run();
