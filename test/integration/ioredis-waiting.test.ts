import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { setTimeout as delay } from 'node:timers/promises';
import { Redis as Redis5 } from 'ioredis';
import { Redis as Redis6 } from 'ioredis6';
import { Redis as Valkey } from 'iovalkey';
import { mastersSuite, probesEach } from '../helpers/masters.js';
import { eventually, type Probe } from '../helpers/redis.js';
import { rejection } from '../helpers/reject.js';
import { timed } from '../helpers/timeout.js';
import { LockLostError, Redlock } from '../../src/index.js';
import type { IoredisClient } from '../../src/clients.js';

// Waiters and watchHeld on ioredis-family members (src/watch/ioredis-link.ts): tracking in the
// redirect mode, on a reader and a subscriber per master. Retry delays are long enough that a test
// passing by polling would blow its time bound.
const test = mastersSuite('ioredis waiting', { count: 5, healEach: true, flushEach: true });

const probes = probesEach(test);

const KINDS = {
  'ioredis 5': (url: string) => new Redis5(url),
  'ioredis 6': (url: string) => new Redis6(url),
  iovalkey: (url: string) => new Valkey(url),
} as const;

let given: IoredisClient[] = [];
async function clients(kind: keyof typeof KINDS, urls: readonly string[]): Promise<IoredisClient[]> {
  const made = urls.map((url) => KINDS[kind](url) as unknown as IoredisClient);
  given.push(...made);
  for (const client of made) client.on('error', () => undefined);
  await Promise.all(made.map((client) => new Promise((resolve) => client.once('ready', resolve))));
  return made;
}
test.after.each(() => {
  for (const client of given) client.disconnect(false);
  given = [];
});

/** The lines of CLIENT LIST on `probe` whose connection tracks keys (flag t). */
async function tracking(probe: Probe): Promise<string[]> {
  const list = await probe.sendCommand<string>(['CLIENT', 'LIST']);
  return list.split('\n').filter((line) => /flags=\S*t/.test(line));
}

/** Until every master has a connection tracking with a redirect to a live subscriber (flag t, redir set). */
async function armed(): Promise<void> {
  await eventually(async () => {
    const lists = await Promise.all(probes.map(tracking));
    return lists.every((lines) => lines.some((line) => /redir=\d+/.test(line) && !/redir=-1/.test(line)));
  }, 3000, 'redirected tracking on every master');
  await delay(50);
}

/** The time from `from` until `promise` settles, with its value. */
async function timedFrom<T>(from: number, promise: Promise<T>): Promise<{ value: T; ms: number }> {
  const value = await promise;
  return { value, ms: performance.now() - from };
}

for (const kind of Object.keys(KINDS) as (keyof typeof KINDS)[]) {
  test(`${kind}: a waiter wakes on the release, not at its next retry (2 s away)`, timed(10000, async ({ masters }) => {
    const holder = new Redlock(masters.urls);
    const waiter = new Redlock(await clients(kind, masters.urls), { retryCount: 3, retryDelay: 2000, retryJitter: 0 });
    try {
      const held = await holder.acquire(['io-wake'], 10000);
      const waiting = waiter.acquire(['io-wake'], 10000);
      await armed();
      const released = performance.now();
      await held.release();
      const { value: lock, ms } = await timedFrom(released, waiting);
      assert.ok(ms < 150, `woke ${ms.toFixed(0)} ms after the release`);
      await lock.release();
    } finally {
      await holder.quit();
      await waiter.quit();
    }
  }));
}

test('ioredis 6: watchHeld notices the lock overwritten on every master within 100 ms', timed(10000, async ({ masters }) => {
  const redlock = new Redlock(await clients('ioredis 6', masters.urls), { watchHeld: true });
  try {
    const reason = await redlock.using(['io-held'], 10000, async (signal) => {
      await armed();
      const aborted = new Promise<number>((resolve) => { signal.addEventListener('abort', () => { resolve(performance.now()); }, { once: true }); });
      const from = performance.now();
      await Promise.all(probes.map((probe) => probe.sendCommand(['SET', 'io-held', 'someone-else', 'PX', '10000'])));
      const ms = await Promise.race([aborted, delay(2000).then(() => Infinity)]) - from;
      assert.ok(ms < 100, `lost ${ms.toFixed(0)} ms after the overwrite`);
      return signal.error;
    }).catch((error: unknown) => error);
    assert.instance(reason, LockLostError);
  } finally {
    await redlock.quit();
  }
}));

test('ioredis 5: after both watch connections are killed, the reconnected link tracks again and the waiter still wakes on the release', timed(15000, async ({ masters }) => {
  const holder = new Redlock(masters.urls);
  const waiter = new Redlock(await clients('ioredis 5', masters.urls), { retryCount: 2, retryDelay: 4000, retryJitter: 0 });
  try {
    const held = await holder.acquire(['io-again'], 20000);
    const waiting = waiter.acquire(['io-again'], 20000);
    await armed();
    const before = await Promise.all(probes.map(tracking));
    // The subscriber (pubsub) and the tracking reader on every master, as a network blip would.
    await Promise.all(probes.map(async (probe, i) => {
      await probe.sendCommand(['CLIENT', 'KILL', 'TYPE', 'pubsub']);
      for (const line of before[i]!) await probe.sendCommand(['CLIENT', 'KILL', 'ID', /id=(\d+)/.exec(line)![1]!]);
    }));
    await eventually(async () => {
      const after = await Promise.all(probes.map(tracking));
      return after.every((lines, i) => lines.some((line) => /redir=\d+/.test(line) && !/redir=-1/.test(line) && !before[i]!.includes(line)));
    }, 3000, 'tracking re-established on new connections');
    await delay(100);
    const released = performance.now();
    await held.release();
    const { value: lock, ms } = await timedFrom(released, waiting);
    assert.ok(ms < 150, `woke ${ms.toFixed(0)} ms after the release`);
    await lock.release();
  } finally {
    await holder.quit();
    await waiter.quit();
  }
}));

test('ioredis 6: the user\'s clients stay untracked and on their own protocol; quit({ keepClients }) closes the watch links pipelock opened and leaves the user\'s clients', timed(10000, async ({ masters }) => {
  const given6 = await clients('ioredis 6', masters.urls);
  const names = await Promise.all(given6.map(async (client) => String(await client.call('CLIENT', 'ID'))));
  const holder = new Redlock(masters.urls);
  const waiter = new Redlock(given6, { retryCount: 1, retryDelay: 300, retryJitter: 0 });
  const held = await holder.acquire(['io-quiet'], 10000);
  await rejection(waiter.acquire(['io-quiet'], 1000));
  await armed();
  const lines = await Promise.all(probes.map((probe) => probe.sendCommand<string>(['CLIENT', 'LIST'])));
  lines.forEach((list, i) => {
    const mine = list.split('\n').find((line) => line.startsWith(`id=${names[i]!} `))!;
    assert.ok(!/flags=\S*t/.test(mine), `the user's client is not tracking: ${mine}`);
    assert.match(mine, /resp=3/, 'ioredis 6 keeps RESP3 on the user\'s connection');
    assert.ok(/sub=1/.test(list) && /flags=\S*t/.test(list), 'a subscriber and a tracking reader of pipelock\'s');
  });
  await waiter.quit({ keepClients: true });
  await held.release();
  await holder.quit();
  await eventually(async () => {
    const after = await Promise.all(probes.map((probe) => probe.sendCommand<string>(['CLIENT', 'LIST'])));
    return after.every((list) => !/sub=1/.test(list) && !/flags=\S*t/.test(list));
  }, 2000, 'pipelock\'s readers and subscribers closed');
  assert.ok(given6.every((client) => client.status === 'ready'), 'the user\'s clients stay open');
}));

test.run();
