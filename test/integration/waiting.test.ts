import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { setImmediate as turn, setTimeout as delay } from 'node:timers/promises';
import { createClient } from '@redis/client';
import { mastersSuite, probesEach } from '../helpers/masters.js';
import { eventually, landed, type Probe } from '../helpers/redis.js';
import { rejection } from '../helpers/reject.js';
import { retrying } from '../helpers/retrying.js';
import { timed } from '../helpers/timeout.js';
import { LockAbortedError, Redlock, ResourceLockedError, type Lock } from '../../src/index.js';

// Waiting woken by releases (src/waiting/): against real masters, with retry delays long enough
// that a test passing by polling would blow its time bound.
const test = mastersSuite('waiting', { count: 5, healEach: true, flushEach: true });

const probes = probesEach(test);

/** The ids of a master's connections with client tracking on (CLIENT LIST flag t). */
async function trackingClients(probe: Probe): Promise<string[]> {
  const list = await probe.sendCommand<string>(['CLIENT', 'LIST']);
  return list.split('\n').filter((line) => /flags=\S*t/.test(line)).map((line) => /id=(\d+)/.exec(line)![1]!);
}

/** The time from `from` until `promise` settles, with its value. */
async function timedFrom<T>(from: number, promise: Promise<T>): Promise<{ value: T; ms: number }> {
  const value = await promise;
  return { value, ms: performance.now() - from };
}

// Woken within 1 s of the release, half its retry delay: by the release (quiet, tens of ms; a speed is the benchmarks').
test('a waiter wakes on the release, not at its next retry (2 s away)', timed(10000, async ({ masters }) => {
  const holder = new Redlock(masters.urls);
  const waiter = new Redlock(masters.urls, { retryCount: 3, retryDelay: 2000, retryJitter: 0 });
  try {
    const held = await holder.acquire(['wake'], 10000);
    const asleep = retrying('wake');
    const waiting = waiter.acquire(['wake'], 10000);
    await asleep;
    await turn();
    const released = performance.now();
    await held.release();
    const { value: lock, ms } = await timedFrom(released, waiting);
    assert.ok(ms < 1_000, `woke ${ms.toFixed(0)} ms after the release`);
    await lock.release();
  } finally {
    await holder.quit();
    await waiter.quit();
  }
}));

test('with wakeups: false it polls (the control)', timed(10000, async ({ masters }) => {
  const holder = new Redlock(masters.urls);
  const waiter = new Redlock(masters.urls, { retryCount: 3, retryDelay: 1000, retryJitter: 0, wakeups: false });
  try {
    const held = await holder.acquire(['poll'], 10000);
    const started = performance.now();
    const asleep = retrying('poll');
    const waiting = waiter.acquire(['poll'], 10000);
    await asleep;
    await turn();
    await held.release();
    const { value: lock, ms } = await timedFrom(started, waiting);
    assert.ok(ms >= 950, `acquired after ${ms.toFixed(0)} ms: before its retry`);
    await lock.release();
  } finally {
    await holder.quit();
    await waiter.quit();
  }
}));

test('a lock left to expire wakes its waiter at the expiry (Redis may never push it)', timed(10000, async ({ masters }) => {
  const holder = new Redlock(masters.urls);
  const waiter = new Redlock(masters.urls, { retryCount: 2, retryDelay: 4000, retryJitter: 0 });
  try {
    await holder.acquire(['expiring'], 400);
    const started = performance.now();
    const { value: lock, ms } = await timedFrom(started, waiter.acquire(['expiring'], 10000));
    assert.ok(ms >= 300 && ms < 1000, `acquired after ${ms.toFixed(0)} ms; the lock expired at ~400 ms`);
    await lock.release();
  } finally {
    await holder.quit();
    await waiter.quit();
  }
}));

test('callers of one process queue first come, first served behind one network waiter; a returning caller goes last', timed(15000, async ({ masters }) => {
  const holder = new Redlock(masters.urls);
  const redlock = new Redlock(masters.urls, { retryCount: 50, retryDelay: 500, retryJitter: 0 });
  try {
    const held = await holder.acquire(['fifo'], 10000);
    const order: number[] = [];
    // Each caller goes to sleep once: the first after its refusal, the others in line behind it.
    const asleep = retrying('fifo', 6);
    const callers = Array.from({ length: 6 }, (_, i) => (async () => {
      await delay(20 * i);
      // Twice in a row: the second call comes while the others wait, and queues behind them.
      for (let round = 0; round < 2; round++) {
        const lock = await redlock.acquire(['fifo'], 10000);
        order.push(i);
        await delay(2);
        await lock.release();
      }
    })());
    await asleep;
    await turn();
    const released = performance.now();
    await held.release();
    await Promise.all(callers);
    const ms = performance.now() - released;
    assert.equal(order, [0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5]);
    // Twelve handoffs woken by releases, not retries 500 ms apart.
    assert.ok(ms < 1000, `12 handoffs took ${ms.toFixed(0)} ms`);
  } finally {
    await holder.quit();
    await redlock.quit();
  }
}));

test('a newcomer does not barge past a waiting caller of its process when the lock frees', timed(30_000, async ({ masters }) => {
  const holder = new Redlock(masters.urls);
  const redlock = new Redlock(masters.urls, { retryCount: 50, retryDelay: 1000, retryJitter: 0 });
  try {
    const order: string[] = [];
    for (let round = 0; round < 5; round++) {
      order.length = 0;
      const held = await holder.acquire(['barge'], 10000);
      // Asleep before the release (a delay of 50 ms was outrun beside two busy loops, and the round waited out a 1 s retry).
      const asleep = retrying('barge');
      const first = redlock.acquire(['barge'], 10000).then((lock) => {
        order.push('waiting');
        return lock;
      });
      await asleep;
      await turn();
      // Released while the newcomer's SET NX goes out: it would often win without the queue.
      const releasing = held.release();
      const second = redlock.acquire(['barge'], 10000).then((lock) => {
        order.push('newcomer');
        return lock;
      });
      await releasing;
      await (await first).release();
      await (await second).release();
      assert.equal(order, ['waiting', 'newcomer'], `round ${round}`);
    }
  } finally {
    await holder.quit();
    await redlock.quit();
  }
}));

test('the schedule still bounds the wait: refused throughout, it fails after retryCount retries', timed(10000, async ({ masters }) => {
  const holder = new Redlock(masters.urls);
  const waiter = new Redlock(masters.urls, { retryCount: 3, retryDelay: 100, retryJitter: 0 });
  try {
    const held = await holder.acquire(['bounded'], 10000);
    // Refused throughout: a waiter reading the key where the holder's last SET has not landed finds it free and wakes.
    await landed(probes, 'bounded');
    const started = performance.now();
    const error = await rejection(waiter.acquire(['bounded'], 10000), ResourceLockedError);
    const ms = performance.now() - started;
    assert.is(error.attempts.length, 4);
    assert.ok(ms >= 280 && ms < 1500, `failed after ${ms.toFixed(0)} ms`);
    await held.release();
  } finally {
    await holder.quit();
    await waiter.quit();
  }
}));

test('an aborted queued caller leaves at once; the queue goes on', timed(10000, async ({ masters }) => {
  const holder = new Redlock(masters.urls);
  const redlock = new Redlock(masters.urls, { retryCount: 50, retryDelay: 1000, retryJitter: 0 });
  try {
    const held = await holder.acquire(['abort'], 10000);
    const asleep = retrying('abort');
    const first = redlock.acquire(['abort'], 10000);
    await asleep;
    const controller = new AbortController();
    const second = redlock.acquire(['abort'], 10000, { signal: controller.signal });
    const third = redlock.acquire(['abort'], 10000);
    await delay(50);
    controller.abort(new Error('no longer needed'));
    await rejection(second, LockAbortedError);
    await held.release();
    const a = await first;
    await a.release();
    const c = await third;
    await c.release();
  } finally {
    await holder.quit();
    await redlock.quit();
  }
}));

test('wake-ups lost (watch connections killed before the release): the waiter still acquires on its schedule', timed(10000, async ({ masters }) => {
  const holder = new Redlock(masters.urls);
  const waiter = new Redlock(masters.urls, { retryCount: 5, retryDelay: 300, retryJitter: 0 });
  try {
    const held = await holder.acquire(['lost-wakeups'], 10000);
    const asleep = retrying('lost-wakeups');
    const waiting = waiter.acquire(['lost-wakeups'], 10000);
    await asleep;
    // The watch connections are the ones with tracking on, one per master once the waiter reads there.
    await eventually(async () => (await Promise.all(probes.map(trackingClients))).every((ids) => ids.length === 1), 5000, 'a watch per master');
    let killed = 0;
    for (const probe of probes) {
      for (const id of await trackingClients(probe)) killed += Number(await probe.sendCommand(['CLIENT', 'KILL', 'ID', id, 'SKIPME', 'yes']));
    }
    assert.is(killed, 5);
    await held.release();
    const lock = await waiting;
    await lock.release();
  } finally {
    await holder.quit();
    await waiter.quit();
  }
}));

test('the user\'s own clients stay RESP2 without tracking; quit() closes the watch connections', timed(10000, async ({ masters }) => {
  const clients = await Promise.all(masters.urls.map(async (url) => {
    const client = createClient({ url, RESP: 2 });
    await client.connect();
    return client;
  }));
  const redlock = new Redlock(clients);
  try {
    const held = await redlock.acquire(['user-clients'], 10000);
    const waiting = redlock.acquire(['user-clients'], 10000);
    await eventually(async () => (await trackingClients(probes[0]!)).length === 1, 3000, 'a watch connection');
    await held.release();
    await (await waiting).release();
    for (const client of clients) {
      assert.equal(await client.sendCommand(['CLIENT', 'TRACKINGINFO']), ['flags', ['off'], 'redirect', -1, 'prefixes', []]);
      assert.is(await client.set('plain', 'value'), 'OK');
    }
    await redlock.quit({ keepClients: true });
    await eventually(async () => (await trackingClients(probes[0]!)).length === 0, 3000, 'the watch connection closed');
  } finally {
    await Promise.all(clients.map((client) => client.close()));
  }
}));

test('contenders in several Redlocks (processes) all get the lock, none twice at once', timed(20000, async ({ masters }) => {
  const redlocks = Array.from({ length: 3 }, () => new Redlock(masters.urls, { retryCount: 100, retryDelay: 200, retryJitter: 100 }));
  let inside = 0;
  let violations = 0;
  const counts: number[] = [];
  try {
    await Promise.all(redlocks.flatMap((redlock, r) => Array.from({ length: 4 }, async (_, i) => {
      const me = r * 4 + i;
      counts[me] = 0;
      const end = performance.now() + 1500;
      while (performance.now() < end) {
        const lock: Lock = await redlock.acquire(['several'], 10000);
        if (++inside !== 1) violations++;
        counts[me]++;
        await delay(1);
        inside--;
        await lock.release();
      }
    })));
    assert.is(violations, 0);
    assert.ok(counts.every((n) => n > 0), `every contender acquired: ${counts.join(', ')}`);
  } finally {
    await Promise.all(redlocks.map((r) => r.quit()));
  }
}));

test.run();
