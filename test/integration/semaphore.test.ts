import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { setTimeout as delay } from 'node:timers/promises';
import { mastersSuite, probesEach } from '../helpers/masters.js';
import { eventually } from '../helpers/redis.js';
import { rejection, throwsInvalid } from '../helpers/reject.js';
import { timed } from '../helpers/timeout.js';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { InvalidArgumentError, Redlock, ResourceLockedError, type Lock } from '../../src/index.js';
import { NODE_CALL_CHANNEL } from '../../src/engine/channels.js';
import { permitKey } from '../../src/kinds/semaphore.js';

// Semaphores (src/kinds/semaphore.ts) against five real masters.
const test = mastersSuite('semaphore', { count: 5, healEach: true, flushEach: true });

const probes = probesEach(test);

/** How many of a semaphore's slot keys exist on each master. */
async function slotsHeld(resource: string, permits: number): Promise<number[]> {
  return Promise.all(probes.map(async (probe) => {
    let held = 0;
    for (let i = 0; i < permits; i++) held += await probe.exists(permitKey(resource, i));
    return held;
  }));
}

test('permits: N acquisitions hold at once, the N+1st is refused until one is released', timed(10000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { retryCount: 0 });
  try {
    const semaphore = redlock.semaphore('pool', 3);
    const locks: Lock[] = [];
    for (let i = 0; i < 3; i++) locks.push(await semaphore.acquire(10000, { retryCount: 5, retryDelay: 5 }));
    assert.is(new Set(locks.map((lock) => lock.resources[0])).size, 3, 'three distinct slots');
    await rejection(semaphore.acquire(10000), ResourceLockedError);
    await rejection(semaphore.acquire(10000, { retryCount: 3, retryDelay: 5 }), ResourceLockedError);
    await eventually(async () => (await slotsHeld('pool', 3)).every((n) => n === 3), 2000, 'refused attempts left no slot behind');
    await locks[1]!.release();
    const again = await semaphore.acquire(10000, { retryCount: 3, retryDelay: 5 });
    assert.is(again.resources[0], locks[1]!.resources[0], 'the freed slot');
    for (const lock of [locks[0]!, locks[2]!, again]) await lock.release();
    await eventually(async () => (await slotsHeld('pool', 3)).every((n) => n === 0), 2000, 'every slot free on every master');
  } finally {
    await redlock.quit();
  }
}));

test('many contenders never hold more than the permits at once (in-process interval count)', timed(30000, async ({ masters }) => {
  const clients = [0, 1, 2].map(() => new Redlock(masters.urls, { retryCount: -1, retryDelay: 20, retryJitter: 20 }));
  try {
    let inside = 0;
    let most = 0;
    let runs = 0;
    const permits = 3;
    await Promise.all(Array.from({ length: 12 }, async (_, i) => {
      const semaphore = clients[i % 3]!.semaphore('crowd', permits);
      for (let round = 0; round < 4; round++) {
        await semaphore.using(1000, async () => {
          inside++;
          most = Math.max(most, inside);
          await delay(5 + (i % 4) * 3);
          inside--;
          runs++;
        });
      }
    }));
    assert.is(runs, 48);
    assert.ok(most <= permits, `${most} holders at once with ${permits} permits`);
    assert.ok(most > 1, 'more than one holder at a time (it is not a mutex)');
  } finally {
    await Promise.all(clients.map((client) => client.quit()));
  }
}));

test('a slot held on a majority by others is refused even where this master is empty', timed(10000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { retryCount: 0 });
  try {
    // Slot 0 and 1 of a 2-permit semaphore held by foreign tokens on 3 of 5 masters each.
    for (const i of [0, 1, 2]) await probes[i]!.set(permitKey('majority', 0), 'other', { PX: 10000 });
    for (const i of [2, 3, 4]) await probes[i]!.set(permitKey('majority', 1), 'other', { PX: 10000 });
    const semaphore = redlock.semaphore('majority', 2);
    for (let i = 0; i < 6; i++) await rejection(semaphore.acquire(10000), ResourceLockedError);
    assert.equal(await slotsHeld('majority', 2), [1, 1, 2, 1, 1], 'each lost attempt undid its own grants');
  } finally {
    await redlock.quit();
  }
}));

test('a permit left to expire is free again at its TTL (the server clock); extend and release are owner-checked', timed(10000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { retryCount: 20, retryDelay: 50, retryJitter: 0 });
  try {
    const semaphore = redlock.semaphore('ttl', 1);
    const first = await semaphore.acquire(300);
    const second = await semaphore.acquire(10000);
    assert.is(second.resources[0], first.resources[0]);
    const extended = await second.extend(5000);
    assert.ok(extended.validity > 4000);
    assert.equal((await first.release()).expired, true, 'the expired holder releases nothing');
    // (A master may have refused the second holder while the first's key lived there a moment longer.)
    const values = await Promise.all(probes.map((probe) => probe.get(permitKey('ttl', 0))));
    assert.ok(values.filter((value) => value === extended.value).length >= 3, 'the new holder keeps its slot on a quorum');
    await extended.release();
    await eventually(async () => (await slotsHeld('ttl', 1)).every((n) => n === 0), 2000, 'the slot free on every master');
  } finally {
    await redlock.quit();
  }
}));

test('autoExtend: a permit held past its duration is renewed by the scheduler', timed(10000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls);
  try {
    const semaphore = redlock.semaphore('renewed', 2);
    // Renewed 300 ms before its end: a loaded machine (two busy loops beside the suite) once let 100 ms pass unrenewed.
    const lock = await semaphore.acquire(1000, { autoExtend: true, automaticExtensionThreshold: 300 });
    assert.is(redlock.autoExtended, 1);
    await eventually(() => lock.extensions >= 3, 5000, 'three renewals');
    assert.ok(lock.validity > 0);
    assert.ok((await slotsHeld('renewed', 2)).filter((n) => n === 1).length >= 3, 'held on a quorum');
    await lock.release();
    assert.is(redlock.autoExtended, 0);
  } finally {
    await redlock.quit();
  }
}));

test('autoExtend: permits, read locks and mutexes due together are renewed in one script call per master', timed(10000, async ({ masters }) => {
  // Scripts for all three: on a server with SET IFEQ (the valkey tier) the mutex's renewal would
  // go natively by default, beside the script call of the other two.
  const redlock = new Redlock(masters.urls, { renewalWindow: 200, commands: 'scripts' });
  const calls: number[] = [];
  const listen = (message: unknown): void => {
    calls.push((message as { operations: number }).operations);
  };
  try {
    const settings = { autoExtend: true, automaticExtensionThreshold: 400 };
    const locks = [
      await redlock.acquire(['batched'], 1500, settings),
      await redlock.semaphore('batched-pool', 3).acquire(1500, settings),
      await redlock.readWriteLock('batched-doc').readLock(1500, settings),
    ];
    subscribe(NODE_CALL_CHANNEL, listen);
    await eventually(() => locks.every((lock) => lock.extensions >= 1), 5000, 'a renewal of each');
    unsubscribe(NODE_CALL_CHANNEL, listen);
    assert.ok(calls.some((operations) => operations === 3), `operations per call during the renewals: ${calls.join(', ')}`);
    for (const lock of locks) await lock.release();
  } finally {
    unsubscribe(NODE_CALL_CHANNEL, listen);
    await redlock.quit();
  }
}));

test('a waiter wakes on the release of any permit, not at its next retry (3 s away)', timed(10000, async ({ masters }) => {
  const holder = new Redlock(masters.urls);
  const waiter = new Redlock(masters.urls, { retryCount: 2, retryDelay: 3000, retryJitter: 0 });
  try {
    const held = [await holder.semaphore('wake', 2).acquire(10000), await holder.semaphore('wake', 2).acquire(10000)];
    const waiting = waiter.semaphore('wake', 2).acquire(10000);
    await delay(200);
    const released = performance.now();
    await held[1]!.release();
    const lock = await waiting;
    const ms = performance.now() - released;
    assert.ok(ms < 1500, `woke ${ms.toFixed(0)} ms after the release`);
    // Asleep while every permit was held: its first attempt, the one woken, and one for a hinted slot at most.
    assert.ok(lock.attempts.length <= 3, `${lock.attempts.length} attempts`);
    await lock.release();
    await held[0]!.release();
  } finally {
    await holder.quit();
    await waiter.quit();
  }
}));

test('bad input: typed errors naming the argument and the rule', timed(5000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls);
  try {
    for (const permits of [0, -1, 1.5, Number.NaN, '3', 1025]) throwsInvalid(() => redlock.semaphore('x', permits as number), 'permits');
    for (const resource of ['', 3, undefined]) throwsInvalid(() => redlock.semaphore(resource as string, 1), 'resource');
    const fenced = await rejection(redlock.semaphore('x', 2).acquire(1000, { fencing: true }), InvalidArgumentError);
    assert.is(fenced.argument, 'settings.fencing');
    const duration = await rejection(redlock.semaphore('x', 2).acquire(0), InvalidArgumentError);
    assert.is(duration.argument, 'duration');
    const using = await rejection(redlock.semaphore('x', 2).using(1000, 'no' as never), InvalidArgumentError);
    assert.is(using.argument, 'routine');
    const settings = await rejection(redlock.semaphore('x', 2).using(1000, 'fast' as never, () => Promise.resolve(1)), InvalidArgumentError);
    assert.is(settings.argument, 'settings');
    const threshold = await rejection(redlock.semaphore('x', 2).using(500, () => Promise.resolve(1)), InvalidArgumentError);
    assert.is(threshold.argument, 'duration');
  } finally {
    await redlock.quit();
  }
}));

test.run();
