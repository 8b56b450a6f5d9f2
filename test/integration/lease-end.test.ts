import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { mastersSuite } from '../helpers/masters.js';
import { closeAll, connectAll, eventually, valuesOf } from '../helpers/redis.js';
import { timed } from '../helpers/timeout.js';
import { Redlock, ReentrantRedlock, runOnce, type RedlockAbortSignal } from '../../src/index.js';
import { internals } from '../../src/redlock.js';

// Every signal pipelock hands out says when the lease is over: read after a blocked event loop
// (before any timer ran), and by its 'abort' event at the validity's end, which a composed
// AbortSignal.any() passes on. One home decides it: the renewal scheduler.
const test = mastersSuite('the lease is over', { count: 3, healEach: true, flushEach: true });

/** Runs `body` holding a lease of `duration` ms; resolves when it is let go. */
type Holder = (redlock: Redlock, key: string, duration: number, body: (signal: AbortSignal) => Promise<void>) => Promise<unknown>;

const kHolders: Record<string, Holder> = {
  'using()': (redlock, key, duration, body) => redlock.using([key], duration, body),
  'acquire() with autoExtend': async (redlock, key, duration, body) => {
    const lock = await redlock.acquire([key], duration, { autoExtend: true });
    await body(lock.signal!);
    await lock.release().catch(() => undefined);
  },
  'reentrant using()': (redlock, key, duration, body) => new ReentrantRedlock(redlock).using([key], duration, body),
  'election term': async (redlock, key, duration, body) => {
    const term = await redlock.election(key, { lease: duration }).campaign();
    await body(term.signal);
    await term.resign().catch(() => undefined);
  },
  'semaphore permit': (redlock, key, duration, body) => redlock.semaphore(key, 2).using(duration, body),
  'read hold': (redlock, key, duration, body) => redlock.readWriteLock(key).usingRead(duration, body),
  'write hold': (redlock, key, duration, body) => redlock.readWriteLock(key).usingWrite(duration, body),
  'run-once job': (redlock, key, duration, body) => runOnce(redlock, key, { windowMs: 3_600_000, leaseMs: duration, maxAttempts: 1 }, body),
};

function block(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) { /* the event loop is blocked: no timer runs */ }
}

async function opened(redlock: Redlock): Promise<Redlock> {
  await eventually(() => internals(redlock).masters.nodes.every((node) => node.transport.isReady), 5000, 'connected');
  return redlock;
}

for (const [name, hold] of Object.entries(kHolders)) {
  test(`${name}: read after the loop was blocked past the lease, the signal says aborted`, timed(8000, async ({ masters }) => {
    const redlock = await opened(new Redlock(masters.urls));
    try {
      let first: boolean | undefined;
      await hold(redlock, 'blocked', 1000, async (signal) => {
        block(1200);
        first = signal.aborted;
        await Promise.resolve();
      });
      assert.is(first, true, 'signal.aborted at its first read after the lease');
    } finally {
      await redlock.quit();
    }
  }));

  // Masters 1 and 2 stop answering: the renewal hangs for nodeTimeout (4 s), but the lease of
  // 1 s is over at its validity, and a composed signal hears it then.
  test(`${name}: AbortSignal.any() over the signal aborts at the validity's end`, timed(10_000, async ({ masters }) => {
    const redlock = await opened(new Redlock(masters.urls, { nodeTimeout: 4000 }));
    try {
      let waited = -1;
      let reason: unknown;
      await hold(redlock, 'composed', 1000, async (signal) => {
        const since = performance.now();
        masters.masters[1]!.pause();
        masters.masters[2]!.pause();
        const composed = AbortSignal.any([signal, new AbortController().signal]);
        await new Promise((resolve) => { composed.addEventListener('abort', resolve, { once: true }); });
        waited = performance.now() - since;
        reason = composed.reason;
        masters.masters[1]!.resume();
        masters.masters[2]!.resume();
      });
      assert.ok(waited >= 0 && waited < 1500, `the composed signal aborted ${waited.toFixed(0)} ms into a 1 s lease`);
      assert.instance(reason, Error);
    } finally {
      await redlock.quit();
    }
  }));
}

// The monotonic clock (and every timer) stops while the host is suspended; the wall clock and the
// keys' TTLs do not. Simulated by moving Date.now() a minute on.
test('a host suspended past the lease: the signal reads aborted by the wall clock', timed(8000, async ({ masters }) => {
  const redlock = await opened(new Redlock(masters.urls));
  const now = Date.now;
  try {
    const lock = await redlock.acquire(['suspended'], 10_000, { autoExtend: true });
    assert.is(lock.signal!.aborted, false);
    Date.now = () => now() + 60_000;
    const aborted = lock.signal!.aborted;
    Date.now = now;
    assert.is(aborted, true, 'aborted a minute (of wall clock) after a 10 s lease');
    assert.match(String(lock.signal!.reason), /wall clock passed its expiration/);
    // Only a stepped clock gets here with monotonic validity left: the keys stay to their TTL, so a
    // holder that read `validity` before may still act within it.
    const probes = await connectAll(masters.urls);
    assert.equal(await valuesOf(probes, 'suspended'), [lock.value, lock.value, lock.value]);
    await closeAll(probes);
  } finally {
    Date.now = now;
    await redlock.quit();
  }
}));

test('a nested reentrant using() does not enter a lock whose lease ran out while the loop was blocked', timed(8000, async ({ masters }) => {
  const redlock = await opened(new Redlock(masters.urls));
  const reentrant = new ReentrantRedlock(redlock);
  try {
    let entered = false;
    let refused: unknown;
    await reentrant.using(['nested'], 1000, async () => {
      block(1200);
      await reentrant.using(['nested'], 1000, () => { entered = true; return Promise.resolve(); }).catch((error: unknown) => { refused = error; });
    }).catch(() => undefined);
    assert.is(entered, false, 'the nested routine ran in an expired lock');
    assert.instance(refused, Error);
    assert.match(String((refused as RedlockAbortSignal['error'])?.message), /validity ran out|no longer held|lease/);
  } finally {
    await redlock.quit();
  }
}));

// A renewal refused on a quorum (the keys deleted under the holder) is followed by a read for a
// force-release marker, which waits up to nodeTimeout for a master that does not answer. The lock
// is not ours on a quorum from the refusal on: its signal must say so then, not at that read's
// answer nor at its validity's end.
for (const renewal of ['main', 'worker'] as const) {
  test(`renewal '${renewal}': a refused renewal aborts the signal at once, while the marker read waits for a paused master`, timed(15_000, async ({ masters }) => {
    const redlock = await opened(new Redlock(masters.urls, { renewal, nodeTimeout: 4000, retryCount: 0 }));
    const probes = await connectAll(masters.urls);
    try {
      await redlock.ready();
      const lock = await redlock.acquire(['refused'], 1500, { autoExtend: true });
      const signal = lock.signal!;
      masters.masters[2]!.pause();
      for (const probe of probes.slice(0, 2)) await probe.del('refused');
      // Polled as a holder would: each read of signal.aborted reads the lock's state.
      let left = Infinity;
      await eventually(() => {
        left = lock.expiration - Date.now();
        return signal.aborted;
      }, 5000, 'the signal aborted');
      assert.ok(left > 150, `aborted ${left.toFixed(0)} ms before the validity's end: at its end, not at the refusal`);
      assert.match(String(signal.reason), /no longer held|refused/);
    } finally {
      masters.masters[2]!.resume();
      await closeAll(probes);
      await redlock.quit();
    }
  }));
}

test.run();
