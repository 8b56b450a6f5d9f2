import '../helpers/setup.js';
import { RedisClient } from '@redis/client';
import * as assert from 'uvu/assert';
import { mastersSuite } from '../helpers/masters.js';
import { timed } from '../helpers/timeout.js';
import { getEventListeners } from 'node:events';
import { LockAbortedError, OverloadedError, Redlock, type Lock } from '../../src/index.js';

// Issue 13: a burst of acquisitions is admitted through the client's window, each attempt's clock
// starts when its commands go out, and one that cannot get its turn in time fails with nothing sent.
const test = mastersSuite('overload', { count: 3, flushEach: true });
const createClient = RedisClient.factory();

async function keysOnMasters(urls: readonly string[]): Promise<number[]> {
  return Promise.all(urls.map(async (url) => {
    const client = createClient({ url });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return await client.dbSize();
    } finally {
      client.destroy();
    }
  }));
}

function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) { /* the client's own work, as a large burst's issuing loop is */ }
}

test('a burst whose issuing outlasts nodeTimeout: no master is timed out for the client\'s own delay', timed(30_000, async ({ masters }) => {
  // A budget generous for a loaded machine, and a delay well past it.
  const redlock = new Redlock(masters.urls, { retryCount: 0, nodeTimeout: 1000 });
  try {
    await redlock.ready();
    const burst: Promise<Lock>[] = [];
    for (let i = 0; i < 300; i++) burst.push(redlock.acquire([`burst:${i}`], 30_000));
    // Nothing has gone out yet (the coalescer flushes after this synchronous code): counted from
    // the calls, the budget of every attempt made here would be spent before its commands were sent.
    busy(1500);
    const results = await Promise.allSettled(burst);
    const failed = results.filter((r) => r.status === 'rejected');
    assert.is(failed.length, 0, failed.length > 0 ? String((failed[0] as PromiseRejectedResult).reason) : '');
  } finally {
    await redlock.quit();
  }
}));

test('acquisitions whose deadline passes in the client\'s queue fail with OverloadedError and leave no key behind', timed(30_000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { retryCount: 0 });
  try {
    await redlock.ready();
    const burst: Promise<Lock>[] = [];
    for (let i = 0; i < 2000; i++) burst.push(redlock.acquire([`queued:${i}`], 30_000, { acquireTimeout: 20 }));
    busy(30);
    const results = await Promise.allSettled(burst);
    const won = results.filter((r) => r.status === 'fulfilled').length;
    const errors = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    assert.ok(won > 0 && errors.length > 0, `won ${won}, failed ${errors.length}`);
    for (const error of errors) {
      assert.instance(error, OverloadedError);
      assert.is((error as OverloadedError).code, 'ERR_PIPELOCK_OVERLOADED');
      assert.equal((error as OverloadedError).nodes, []);
    }
    // Only the won locks are on the masters: nothing of a failed-fast acquisition was sent.
    assert.equal(await keysOnMasters(masters.urls), masters.urls.map(() => won));
  } finally {
    await redlock.quit();
  }
}));

test('a master paused mid-burst: the others serve the whole burst, and no key is left once released', timed(60_000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { retryCount: 0 });
  const paused = masters.masters[2]!;
  try {
    await redlock.ready();
    const burst: Promise<Lock>[] = [];
    for (let i = 0; i < 3000; i++) burst.push(redlock.acquire([`paused:${i}`], 30_000));
    // Paused once the first lock is won: the rest of the burst meets a silent master.
    await Promise.race(burst);
    paused.pause();
    const results = await Promise.allSettled(burst);
    const failed = results.filter((r) => r.status === 'rejected');
    assert.is(failed.length, 0, failed.length > 0 ? String((failed[0] as PromiseRejectedResult).reason) : '');
    paused.resume();
    const locks = results.map((r) => (r as PromiseFulfilledResult<Lock>).value);
    // Released a window at a time: releases do not wait in the admission window (a gap noted in
    // the report), and this test is about the burst of acquisitions.
    for (let i = 0; i < locks.length; i += 256) {
      const releases = await Promise.all(locks.slice(i, i + 256).map((lock) => lock.release()));
      // Every master's answer, the resumed one's too (its late SETs run before the deletes, in order).
      await Promise.all(releases.map((release) => release.complete()));
    }
    assert.equal(await keysOnMasters(masters.urls), [0, 0, 0]);
  } finally {
    paused.resume();
    await redlock.quit();
  }
}));

test('a queued acquisition whose resource others of its process now wait for gives its room back while it waits behind them', timed(60_000, async ({ masters }) => {
  const holder = new Redlock(masters.urls);
  // A 10 s retry slot: a call that kept its room through it would hold the window that long.
  const redlock = new Redlock(masters.urls, { retryCount: -1, retryDelay: 10_000, retryJitter: 0 });
  const stop = new AbortController();
  const settled: Promise<unknown>[] = [];
  try {
    await Promise.all([holder.ready(), redlock.ready()]);
    const held = await holder.acquire(['hot'], 30_000);
    // The window's first 256 keys, then 3,000 calls on the held key queued behind them (nobody of
    // this process waits for it yet), then one on a free key.
    for (let i = 0; i < 256; i++) settled.push(redlock.acquire([`fill:${i}`], 30_000).then((lock) => lock.release()));
    for (let i = 0; i < 3000; i++) settled.push(redlock.acquire(['hot'], 30_000, { signal: stop.signal }).catch(() => undefined));
    const t0 = performance.now();
    const free = await redlock.acquire(['free'], 30_000, { acquireTimeout: 20_000 });
    const waited = performance.now() - t0;
    // The first windows of hot calls were sent and refused; every later one, admitted after them,
    // waits behind them with its room given back, so the free key's turn came within round trips.
    assert.ok(waited < 4000, `the free key waited ${waited.toFixed(0)} ms for its turn`);
    await free.release();
    await held.release();
  } finally {
    // Aborted, not left to quit(): a waiter behind others sleeps out its retry slot before it sees the close.
    stop.abort();
    await redlock.quit();
    await holder.quit();
    await Promise.allSettled(settled);
  }
}));

test('a burst of 25,000 releases with a tight budget: every one confirmed (they wait their turn in the window, not in the masters\' queues)', timed(60_000, async ({ masters }) => {
  // 50 ms: sent all at once, the last of 25,000 releases sat in each master's queue well past it.
  const redlock = new Redlock(masters.urls, { retryCount: 3, nodeTimeout: 50 });
  try {
    await redlock.ready();
    const locks: Lock[] = [];
    for (let i = 0; i < 25_000; i += 2_500) locks.push(...await Promise.all(Array.from({ length: 2_500 }, (_, j) => redlock.acquire([`release-burst:${i + j}`], 30_000))));
    const results = await Promise.allSettled(locks.map((lock) => lock.release()));
    const failed = results.filter((r) => r.status === 'rejected');
    // Sent all at once, 20,392 of the 25,000 failed here; through the window, none in most runs,
    // and up to 250 when this 2-core machine stalled a master past 50 ms, until a release no quorum
    // answered was tried again (retryCount 3): a stall now has to outlast four tries.
    assert.is(failed.length, 0, `${failed.length} releases failed, the first: ${String((failed[0])?.reason)}`);
    assert.equal(await keysOnMasters(masters.urls), masters.urls.map(() => 0));
  } finally {
    await redlock.quit();
  }
}));

test('quit() mid-burst: queued and in-flight acquisitions fail with RedlockClosedError, and only the locks handed out stay on the masters', timed(30_000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { retryCount: 0 });
  await redlock.ready();
  const won: Lock[] = [];
  const failed = new Map<string, number>();
  const burst = Array.from({ length: 50_000 }, (_, i) => redlock.acquire([`quit-burst:${i}`], 30_000).then((lock) => {
    won.push(lock);
  }, (error: unknown) => {
    const code = (error as { code?: string }).code ?? String(error);
    failed.set(code, (failed.get(code) ?? 0) + 1);
  }));
  // Some windows answered, one in flight, the rest queued in the client.
  await new Promise((resolve) => setTimeout(resolve, 50));
  await redlock.quit();
  await Promise.all(burst);
  assert.equal([...failed.keys()], ['ERR_PIPELOCK_CLOSED'], JSON.stringify(Object.fromEntries(failed)));
  assert.is(won.length + failed.get('ERR_PIPELOCK_CLOSED')!, 50_000);
  // Closed at once, the window in flight lost its replies: its attempts failed and their keys stayed.
  assert.equal(await keysOnMasters(masters.urls), masters.urls.map(() => won.length));
}));

test('25,000 waits on one AbortSignal add one listener to it, and its abort ends every one', timed(60_000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { retryCount: -1, retryDelay: 1000 });
  const other = new Redlock(masters.urls);
  const stop = new AbortController();
  try {
    const held = await other.acquire(['one-signal'], 30_000);
    // The releases of the distinct keys are not this test's subject: sent while the client burns a
    // core on 25,000 calls and the masters share the other, some miss their 250 ms budget (a typed
    // QuorumUnreachableError; the key expires). They are counted apart, not failed on.
    let releasesFailed = 0;
    const calls = Array.from({ length: 25_000 }, (_, i) => redlock.acquire([i % 2 === 0 ? 'one-signal' : `one-signal:${i}`], 30_000, { signal: stop.signal }).then(
      (lock) => lock.release().catch(() => { releasesFailed++; }),
      (error: unknown) => error,
    ));
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.ok(getEventListeners(stop.signal, 'abort').length <= 2, `${getEventListeners(stop.signal, 'abort').length} listeners`);
    stop.abort();
    const outcomes = await Promise.all(calls);
    assert.ok(outcomes.filter((o) => o instanceof LockAbortedError).length >= 12_500, 'every waiter for the held key was aborted');
    assert.ok(releasesFailed < 12_500, 'most releases were confirmed');
    await held.release();
  } finally {
    await redlock.quit();
    await other.quit();
  }
}));

test.run();
