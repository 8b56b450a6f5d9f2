import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { setTimeout as delay } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { mastersSuite, probesEach } from '../helpers/masters.js';
import { commandCalls } from '../helpers/redis.js';
import { timed } from '../helpers/timeout.js';
import { Redlock, runOnce } from '../../src/index.js';

// ioredis clients with a keyPrefix (one Redis shared by several apps): every feature names its
// keys as the engine does, prefix included, and writes nothing outside the prefix.
const test = mastersSuite('ioredis keyPrefix, every feature', { count: 3, healEach: true, flushEach: true });
const probes = probesEach(test);

const kPrefix = 'app:';
const opened: { redlock: Redlock; clients: Redis[] }[] = [];

async function prefixed(urls: readonly string[], options?: ConstructorParameters<typeof Redlock>[1]): Promise<Redlock> {
  const clients = urls.map((url) => new Redis(url, { keyPrefix: kPrefix }));
  for (const client of clients) client.on('error', () => undefined);
  await Promise.all(clients.map((client) => new Promise((resolve) => client.once('ready', resolve))));
  const redlock = new Redlock(clients, options);
  opened.push({ redlock, clients });
  return redlock;
}

test.after.each(async () => {
  for (const { redlock, clients } of opened.splice(0)) {
    await redlock.quit({ keepClients: true });
    await Promise.allSettled(clients.map((client) => client.quit()));
  }
});

/** Every key on every master that is not under the prefix (SCAN, as an operator would look). */
async function outsidePrefix(): Promise<string[]> {
  const found = new Set<string>();
  for (const probe of probes) {
    for await (const keys of probe.scanIterator({ COUNT: 1000 })) {
      for (const key of [keys].flat()) if (!key.startsWith(kPrefix)) found.add(key);
    }
  }
  return [...found].sort();
}

test('(a) using() with watchHeld is not aborted while its keys are alive', timed(10_000, async ({ masters }) => {
  const redlock = await prefixed(masters.urls, { watchHeld: true });
  const aborted = await redlock.using(['held'], 2000, async (signal) => {
    await delay(2500);
    return signal.aborted ? String(signal.reason) : false;
  });
  assert.is(aborted, false);
  assert.equal(await outsidePrefix(), []);
}));

test('(b) an election grants a term and leader() shows it', timed(10_000, async ({ masters }) => {
  const redlock = await prefixed(masters.urls);
  const election = redlock.election('el', { lease: 2000 });
  const term = await election.campaign({ value: 'me' });
  assert.equal(await election.leader(), { term: term.term, value: 'me' });
  await term.resign();
  assert.is(await election.leader(), undefined);
  assert.equal(await outsidePrefix(), []);
}));

test('(c) a waiter is woken by the release and does not storm the masters while it waits', timed(10_000, async ({ masters }) => {
  const redlock = await prefixed(masters.urls);
  // Another Redlock (as another process): a release in this one would hand the lock over in-process.
  const other = await prefixed(masters.urls);
  const held = await other.acquire(['busy'], 5000);
  const before = (await commandCalls(probes)).reduce((a, b) => a + b, 0);
  // A retry schedule far longer than the hold: only a wake-up brings the waiter in soon after the release.
  const waiter = redlock.acquire(['busy'], 5000, { retryDelay: 3000, retryJitter: 0, retryCount: 3 });
  await delay(1000);
  const during = (await commandCalls(probes)).reduce((a, b) => a + b, 0) - before;
  const releasedAt = performance.now();
  await held.release();
  const lock = await waiter;
  const waited = performance.now() - releasedAt;
  await lock.release();
  // Its first attempt, one read per master to arm the watch, a few INFO-free reads more: tens, not hundreds.
  assert.ok(during <= 40, `${during} commands at the masters while one waiter waited 1 s`);
  assert.ok(waited < 1000, `acquired ${waited.toFixed(0)} ms after the release`);
  assert.equal(await outsidePrefix(), []);
}));

test('(d) no key outside the prefix: fencing, semaphore, read/write lock, run-once, gated waits', timed(15_000, async ({ masters }) => {
  const redlock = await prefixed(masters.urls);
  const fenced = await redlock.acquire(['f'], 2000, { fencing: true });
  await fenced.release();
  const permit = await redlock.semaphore('sem', 2).acquire(2000);
  await permit.release();
  const rw = redlock.readWriteLock('rw');
  await (await rw.readLock(2000)).release();
  await (await rw.writeLock(2000)).release();
  const outcome = await runOnce(redlock, 'job', { windowMs: 60_000, leaseMs: 2000, maxAttempts: 1 }, () => Promise.resolve('done'));
  assert.is(outcome.status, 'ran');
  // Two waiters in another process's line: the gate's turns key.
  const other = await prefixed(masters.urls);
  const first = await redlock.acquire(['line'], 3000);
  const waiters = [other.acquire(['line'], 3000, { retryCount: 20 }), other.acquire(['line'], 3000, { retryCount: 20 })];
  await delay(300);
  await first.release();
  const second = await waiters[0]!;
  await second.release();
  await (await waiters[1]!).release();
  assert.equal(await outsidePrefix(), []);
}));

test.run();
