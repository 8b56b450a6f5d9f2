import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { startMasters, type LocalMasters } from '../../src/testing/masters.js';
import { mastersSuite } from '../helpers/masters.js';
import { closeAll, connectAll, type Probe } from '../helpers/redis.js';
import { timed } from '../helpers/timeout.js';
import { fencedWrite, Redlock, type Lock } from '../../src/index.js';

// Fencing tokens across the quorum, and the storage side that rejects stale holders.
const test = mastersSuite('fencing', { count: 5, healEach: true, flushEach: true });

let store: LocalMasters | undefined;
let storeProbe: Probe[] = [];
test.before(async () => {
  store = await startMasters({ count: 1 });
  storeProbe = await connectAll(store.urls);
});
test.after(async () => {
  await closeAll(storeProbe);
  await store?.close();
});

// 38–50 s quiet on the slower 2-core host, past 90 s there beside two busy loops: the limit is a hang's, not a speed.
test('fences strictly increase over 10,000 acquisitions by 4 competing clients while masters are killed and restarted', timed(300_000, async ({ masters }) => {
  const settings = { retryCount: -1, retryDelay: 2, retryJitter: 2, nodeTimeout: 100 };
  const clients = Array.from({ length: 4 }, () => new Redlock(masters.urls, settings));
  try {
    await Promise.all(clients.map((c) => c.ready()));
    const duration = 200;
    const fences: number[] = [];
    // The holder inside the critical section, which spans a turn of the event loop so that the
    // other clients' acquisitions can complete while it is held: an overlap is a second holder
    // entering while the first one's lock is still valid.
    let holder: Lock | undefined;
    let overlap = 0;
    const target = 10_000;
    const worker = async (redlock: Redlock): Promise<void> => {
      while (fences.length < target) {
        const lock = await redlock.acquire(['fenced'], duration, { fencing: true });
        if (holder !== undefined && holder.validity > 0) overlap++;
        holder = lock;
        fences.push(lock.fence!);
        await new Promise((resolve) => setImmediate(resolve));
        if (holder === lock) holder = undefined;
        await lock.release();
      }
    };
    let restarts = 0;
    const faults = (async () => {
      // Kill a master and bring it back empty only after the lock duration (the delayed restart):
      // its counters come back from the master's clock, above every token it handed out.
      for (const [at, i] of [[0.2, 1], [0.4, 3], [0.7, 1]] as const) {
        while (fences.length < target * at) await new Promise((r) => setTimeout(r, 20));
        await masters.masters[i]!.stop();
        await masters.masters[i]!.restart({ delayMs: duration + 100 });
        restarts++;
      }
    })();
    await Promise.all([...clients.map(worker), faults]);
    assert.is(restarts, 3);
    assert.is(overlap, 0);
    for (let i = 1; i < fences.length; i++) {
      if (!(fences[i]! > fences[i - 1]!)) assert.unreachable(`fence ${i} (${fences[i]}) is not above fence ${i - 1} (${fences[i - 1]})`);
    }
    assert.ok(fences.length >= target);
  } finally {
    await Promise.all(clients.map((c) => c.quit()));
  }
}));

test('a stale holder\'s fenced write is rejected after a newer holder wrote', timed(8000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { retryCount: 20, retryDelay: 20 });
  try {
    const stale = await redlock.acquire(['account'], 100, { fencing: true });
    // The stale holder pauses past its validity (Kleppmann's stop-the-world GC pause)…
    await new Promise((r) => setTimeout(r, 150));
    const fresh = await redlock.acquire(['account'], 5000, { fencing: true });
    assert.ok(fresh.fence! > stale.fence!);
    const store0 = storeProbe[0]!;
    assert.is(await fencedWrite(store0, 'account:data', fresh.fence!, 'fresh'), true);
    // …and wakes up to write: rejected, because a newer token already wrote.
    assert.is(await fencedWrite(store0, 'account:data', stale.fence!, 'stale'), false);
    assert.is(await store0.hGet('account:data', 'value'), 'fresh');
    assert.is(await fencedWrite(store0, 'account:data', fresh.fence!, 'again'), true, 'the holder\'s own second write (an equal token) is accepted');
    assert.is(await store0.hGet('account:data', 'value'), 'again');
    await fresh.release();
  } finally {
    await redlock.quit();
  }
}));

test('multi-resource fence exceeds every earlier fence of each resource; counters expire, not grow', timed(8000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls);
  const probes = await connectAll(masters.urls);
  try {
    const a = await redlock.acquire(['x'], 1000, { fencing: true });
    await a.release();
    const b = await redlock.acquire(['y'], 1000, { fencing: true });
    await b.release();
    const both = await redlock.acquire(['x', 'y'], 1000, { fencing: true });
    assert.ok(both.fence! > a.fence! && both.fence! > b.fence!);
    await both.release();
    for (const probe of probes) {
      const ttl = await probe.pTTL('pipelock:fence:x');
      assert.ok(ttl > 6 * 24 * 3600 * 1000, `counter TTL ${ttl}`);
    }
  } finally {
    await closeAll(probes);
    await redlock.quit();
  }
}));

test.run();
