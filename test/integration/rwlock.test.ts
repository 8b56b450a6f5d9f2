import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { setTimeout as delay } from 'node:timers/promises';
import { mastersSuite, probesEach } from '../helpers/masters.js';
import { eventually } from '../helpers/redis.js';
import { rejection, throwsInvalid } from '../helpers/reject.js';
import { timed } from '../helpers/timeout.js';
import { InvalidArgumentError, Redlock, ResourceLockedError } from '../../src/index.js';

// Read/write locks (src/kinds/rwlock.ts) against five real masters.
const test = mastersSuite('rwlock', { count: 5, healEach: true, flushEach: true });

const probes = probesEach(test);

async function countOn(key: string, kind: 'zset' | 'string'): Promise<number[]> {
  return Promise.all(probes.map((probe) => kind === 'zset' ? probe.zCard(key) : probe.exists(key)));
}

/** Waits until every master counts `expected` (a release or an acquisition resolves at the quorum: the rest may lag). */
async function settlesTo(key: string, kind: 'zset' | 'string', expected: number, what: string): Promise<void> {
  await eventually(async () => (await countOn(key, kind)).every((n) => n === expected), 2000, what);
}

test('many readers together; a writer excludes readers and writers, and waits for readers to leave', timed(10000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { retryCount: 0 });
  try {
    const rw = redlock.readWriteLock('doc');
    const r1 = await rw.readLock(10000);
    const r2 = await rw.readLock(10000);
    await settlesTo('doc:readers', 'zset', 2, 'both readers on every master');
    await rejection(rw.writeLock(10000), ResourceLockedError);
    assert.equal(await countOn('doc:writer', 'string'), [0, 0, 0, 0, 0], 'the refused writer left nothing held');
    await r1.release();
    await r2.release();
    await settlesTo('doc:readers', 'string', 0, 'the last reader removes the set');
    const w = await rw.writeLock(10000);
    await settlesTo('doc:writer-waiting', 'string', 0, 'the winning writer clears the waiting marker');
    await rejection(rw.readLock(10000), ResourceLockedError);
    await rejection(rw.writeLock(10000), ResourceLockedError);
    const extended = await w.extend(10000);
    await extended.release();
    const r3 = await rw.readLock(10000);
    await r3.release();
  } finally {
    await redlock.quit();
  }
}));

test('writer preference: while a writer waits, new readers are refused; the writer gets in when the old readers leave', timed(15000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { retryCount: 0 });
  const writer = new Redlock(masters.urls, { retryCount: 50, retryDelay: 100, retryJitter: 0 });
  try {
    const rw = redlock.readWriteLock('pref');
    const old = await rw.readLock(10000);
    const waiting = writer.readWriteLock('pref').writeLock(10000);
    await eventually(async () => (await countOn('pref:writer-waiting', 'string')).filter((n) => n === 1).length >= 3, 2000, 'the waiting marker on a quorum');
    for (let i = 0; i < 5; i++) {
      await rejection(rw.readLock(10000), ResourceLockedError);
      await delay(100);
    }
    await old.release();
    const w = await waiting;
    await w.release();
  } finally {
    await redlock.quit();
    await writer.quit();
  }
}));

test('a writer that gives up holds readers off only until its marker expires', timed(10000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { retryCount: 0, retryDelay: 50, retryJitter: 0, nodeTimeout: 100 });
  try {
    const rw = redlock.readWriteLock('gaveup');
    const r1 = await rw.readLock(10000);
    await rejection(rw.writeLock(10000), ResourceLockedError);
    const ttls = await Promise.all(probes.map((probe) => probe.pTTL('gaveup:writer-waiting')));
    for (const ttl of ttls) assert.ok(ttl > 0 && ttl <= 2 * (50 + 0) + 100, `marker ttl ${ttl} ms`);
    const r2 = await rw.readLock(10000, { retryCount: 20, retryDelay: 50 });
    await r1.release();
    await r2.release();
  } finally {
    await redlock.quit();
  }
}));

test('a dead reader frees the lock at its TTL (expiry on the server clock); read locks renew and release owner-checked', timed(10000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { retryCount: 40, retryDelay: 50, retryJitter: 0 });
  try {
    const rw = redlock.readWriteLock('ttl');
    const dead = await rw.readLock(300);
    const w = await rw.writeLock(10000);
    assert.equal((await dead.release()).expired, true);
    await w.release();
    const renewed = await rw.readLock(400, { autoExtend: true, automaticExtensionThreshold: 100 });
    await eventually(() => renewed.extensions >= 3, 5000, 'three renewals of the read lock');
    assert.ok(renewed.validity > 0);
    await rejection(rw.writeLock(10000, { retryCount: 0 }), ResourceLockedError);
    await renewed.release();
    await settlesTo('ttl:readers', 'string', 0, 'the read lock released everywhere');
  } finally {
    await redlock.quit();
  }
}));

test('an expired reader beside a live one: the live one leaving lets a writer in at once (expired entries are dropped)', timed(10000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { retryCount: 0 });
  try {
    const rw = redlock.readWriteLock('purge');
    await rw.readLock(200);
    const live = await rw.readLock(10000);
    await delay(400);
    await live.release();
    const w = await rw.writeLock(10000);
    await w.release();
  } finally {
    await redlock.quit();
  }
}));

test('mixed readers and writers: never a writer together with anyone (in-process interval count)', timed(30000, async ({ masters }) => {
  const clients = [0, 1, 2].map(() => new Redlock(masters.urls, { retryCount: -1, retryDelay: 20, retryJitter: 20 }));
  try {
    let readers = 0;
    let writers = 0;
    let bad = 0;
    let mostReaders = 0;
    let writes = 0;
    await Promise.all(Array.from({ length: 12 }, async (_, i) => {
      const rw = clients[i % 3]!.readWriteLock('mixed');
      for (let round = 0; round < 4; round++) {
        if (i % 4 === 0) {
          await rw.usingWrite(1000, async () => {
            writers++;
            if (writers > 1 || readers > 0) bad++;
            await delay(3);
            if (writers > 1 || readers > 0) bad++;
            writers--;
            writes++;
          });
        } else {
          await rw.usingRead(1000, async () => {
            readers++;
            mostReaders = Math.max(mostReaders, readers);
            if (writers > 0) bad++;
            await delay(5);
            if (writers > 0) bad++;
            readers--;
          });
        }
      }
    }));
    assert.is(bad, 0, 'a writer overlapped another holder');
    assert.is(writes, 12);
    assert.ok(mostReaders > 1, 'readers held together');
  } finally {
    await Promise.all(clients.map((client) => client.quit()));
  }
}));

test('a writer\'s release wakes every reader waiting in the process, not one (their retries are 3 s away)', timed(15000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { retryCount: 2, retryDelay: 3000, retryJitter: 0 });
  try {
    const rw = redlock.readWriteLock('herd');
    const w = await rw.writeLock(10000);
    const readers = Array.from({ length: 12 }, () => rw.readLock(10000));
    await delay(300);
    const released = performance.now();
    await w.release();
    const locks = await Promise.all(readers);
    const ms = performance.now() - released;
    assert.ok(ms < 1500, `the last reader got in ${ms.toFixed(0)} ms after the release`);
    for (const lock of locks) await lock.release();
  } finally {
    await redlock.quit();
  }
}));

test('bad input: typed errors naming the argument', timed(5000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls);
  try {
    for (const resource of ['', 3, null]) throwsInvalid(() => redlock.readWriteLock(resource as string), 'resource');
    const fenced = await rejection(redlock.readWriteLock('x').writeLock(1000, { fencing: true }), InvalidArgumentError);
    assert.is(fenced.argument, 'settings.fencing');
    const duration = await rejection(redlock.readWriteLock('x').readLock(-5), InvalidArgumentError);
    assert.is(duration.argument, 'duration');
  } finally {
    await redlock.quit();
  }
}));

test.run();
