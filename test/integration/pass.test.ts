import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { setImmediate as turn, setTimeout as delay } from 'node:timers/promises';
import { mastersSuite, probesEach } from '../helpers/masters.js';
import { commandCalls, eventually, valuesOf } from '../helpers/redis.js';
import { rejection } from '../helpers/reject.js';
import { retrying } from '../helpers/retrying.js';
import { timed } from '../helpers/timeout.js';
import { Lock, LockAbortedError, Redlock } from '../../src/index.js';

// Passing (src/waiting/handover.ts): a lock released while a caller of the same Redlock waits for
// the same resources, and still valid for about the duration that caller asked for, is passed to
// it as it stands — its token, keys and validity — with nothing sent to any master.
const test = mastersSuite('pass', { count: 5, healEach: true, flushEach: true });

const probes = probesEach(test);

// Retries 10 s apart: a waiter that gets the lock sooner got it from a release, not its schedule.
// A drift allowance of 5% (502 ms for 10 s): a 10 s lock can be passed on (its waiter's duration less two
// allowances left) for about 0.5 s after it was taken; a case that waits longer first takes its holder for 30 s.
const kSettings = { retryCount: 3, retryDelay: 10_000, retryJitter: 0, driftFactor: 0.05 };

test('a lock passed to a waiter of the same Redlock: its token and validity, nothing sent, another process\'s waiter not woken; released again, it sends nothing', timed(15_000, async ({ masters }) => {
  const mine = new Redlock(masters.urls, kSettings);
  const other = new Redlock(masters.urls, kSettings);
  try {
    // Taken for 30 s, it can be passed to a 10 s waiter for 20 s: the wait for quiet masters below took half a
    // second beside two busy loops, past what a 10 s lock has to spare (its drift allowance, 502 ms).
    const held = await mine.acquire(['passed'], 30_000);
    const theirsAsleep = retrying('passed');
    const theirs = other.acquire(['passed'], 10_000);
    await theirsAsleep;
    const waiting = mine.acquire(['passed'], 10_000);
    // The other process's waiter opens its watch connection as it starts to wait (a handshake, a
    // tracking switch and its reads, on a loaded machine past 50 ms): counted from once it is quiet.
    let before = await commandCalls(probes);
    await eventually(async () => {
      await delay(100);
      const now = await commandCalls(probes);
      const quiet = now.every((n, i) => n === before[i]);
      before = now;
      return quiet;
    }, 5_000, 'the masters quiet before the release');
    const released = await held.release();
    const next = await waiting;
    assert.is(released.passedOn, true);
    assert.is(released.released, 0);
    assert.is(released.expired, false);
    assert.is(next.value, held.value);
    assert.is(next.validUntil, held.validUntil);
    assert.ok(next.validity > 10_000, `the holder's validity, not the waiter's 10 s: ${next.validity}`);
    // Nothing reached the masters: no write, so no invalidation woke the other process's head.
    await delay(200);
    assert.equal(await commandCalls(probes), before, 'no command on any master');
    // The holder's Lock is done: releasing it again sends nothing and leaves the keys to `next`.
    const again = await held.release();
    assert.is(again.passedOn, true);
    assert.equal(await commandCalls(probes), before, 'no command on any master');
    assert.equal(await valuesOf(probes, 'passed'), masters.urls.map(() => next.value));
    // Its release goes to the masters (no waiter of this process is left): the other process's turn.
    const released2 = await next.release();
    assert.is(released2.passedOn, false);
    const theirLock = await theirs;
    assert.is.not(theirLock.value, next.value);
    await theirLock.release();
  } finally {
    await mine.quit();
    await other.quit();
  }
}));

test('a lock made by extend(), or with an extend() in flight, is handed over with a new token, not passed: no other Lock can touch the waiter\'s keys', timed(15_000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, kSettings);
  try {
    const first = await redlock.acquire(['ext'], 10_000);
    const extended = await first.extend(10_000);
    let asleep = retrying('ext');
    let waiting = redlock.acquire(['ext'], 10_000);
    await asleep;
    await turn();
    assert.is((await extended.release()).passedOn, false);
    const next = await waiting;
    assert.is.not(next.value, extended.value);
    // `first` still answers for the token extend() kept: its release must find nothing of next's.
    await first.release();
    assert.equal(await valuesOf(probes, 'ext'), masters.urls.map(() => next.value));

    await next.release();

    // A fresh lock (`next` came by a handover, and a chain serves only callers older than it).
    const fresh = await redlock.acquire(['ext-b'], 10_000);
    asleep = retrying('ext-b');
    waiting = redlock.acquire(['ext-b'], 10_000);
    await asleep;
    await turn();
    const extending = fresh.extend(200);
    assert.is((await fresh.release()).passedOn, false);
    const last = await waiting;
    assert.is.not(last.value, fresh.value);
    await extending.catch(() => undefined);
    const ttls = await Promise.all(probes.map((probe) => probe.pTTL('ext-b')));
    assert.ok(ttls.every((ttl) => ttl > 5_000), `the extend did not cut the waiter's ttls: ${ttls.join(', ')}`);
    await last.release();
  } finally {
    await redlock.quit();
  }
}));

test('a waiter that gives up as the lock is passed to it releases it: no key is left', timed(15_000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, kSettings);
  const stop = new AbortController();
  try {
    const held = await redlock.acquire(['gave-up'], 10_000);
    const asleep = retrying('gave-up');
    const waiting = rejection(redlock.acquire(['gave-up'], 10_000, { signal: stop.signal }), LockAbortedError);
    await asleep;
    await turn();
    // The pass is made before release() returns its promise; the waiter's call resumes after the abort.
    const releasing = held.release();
    stop.abort();
    assert.is((await releasing).passedOn, true);
    assert.instance(await waiting, LockAbortedError);
    await eventually(async () => (await valuesOf(probes, 'gave-up')).every((value) => value === null), 2_000, 'no key left on any master');
  } finally {
    await redlock.quit();
  }
}));

test('an auto-extended lock passed on is renewed as the waiter\'s own: held past the holder\'s expiry', timed(15_000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { ...kSettings, driftFactor: 0.2 });
  try {
    const held = await redlock.acquire(['renewed'], 1_000);
    let token = '';
    const asleep = retrying('renewed');
    const running = redlock.using(['renewed'], 1_000, async (signal) => {
      await delay(1_800);
      assert.is(signal.aborted, false);
      token = (await valuesOf(probes, 'renewed'))[0] ?? '';
    });
    await asleep;
    await turn();
    assert.is((await held.release()).passedOn, true);
    await running;
    assert.is(token, held.value, 'still its keys, renewed, 1.8 s into a 1 s lock');
    assert.equal(await valuesOf(probes, 'renewed'), masters.urls.map(() => null), 'released at the end');
  } finally {
    await redlock.quit();
  }
}));

test('a lock passed to a waiter whose validity runs out in a stall before the waiter resumes is not returned: it gets a fresh lock or an error', timed(15_000, async ({ masters }) => {
  // 1 s locks with a 302 ms drift allowance: passed while 396 ms of the ~698 ms validity is left.
  // Retries 1 s apart: the waiter is still asleep when the lock is released, as a pass needs.
  const redlock = new Redlock(masters.urls, { retryCount: 10, retryDelay: 1_000, retryJitter: 0, driftFactor: 0.3 });
  try {
    const held = await redlock.acquire(['stalled'], 1_000);
    // The waiter's retry is scheduled just before it goes to sleep, where a release can pass it the lock.
    const asleep = retrying('stalled');
    const waiting = redlock.acquire(['stalled'], 1_000).then((lock) => ({ lock, validity: lock.validity }), (error: unknown) => ({ error }));
    await asleep;
    await turn();
    const releasing = held.release();
    // The pass is made inside release(): stalling here, before any microtask runs, stalls the
    // waiter between the pass and its resumption, past the passed lock's validity.
    const until = held.validUntil + 20;
    let spins = 0;
    while (performance.now() < until) spins++;
    assert.ok(spins > 0);
    assert.is((await releasing).passedOn, true, 'the lock was passed (the waiter slept)');
    const outcome = await waiting;
    if ('lock' in outcome) {
      assert.ok(outcome.validity > 0, `the waiter was returned a lock with validity ${outcome.validity}`);
      assert.is.not(outcome.lock.value, held.value, 'not the passed lock');
      assert.instance(outcome.lock, Lock);
      await outcome.lock.release();
    } else {
      assert.instance(outcome.error, Error);
    }
  } finally {
    await redlock.quit();
  }
}));

test.run();
