import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { setTimeout as delay } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { Redis as Redis6 } from 'ioredis6';
import { Redis as Valkey } from 'iovalkey';
import { mastersSuite, probesEach } from '../helpers/masters.js';
import { timed } from '../helpers/timeout.js';
import { Redlock, ReentrantRedlock, runOnce, type MemberEntry } from '../../src/index.js';

// Every client kind an application hands pipelock, with every feature it uses: each cell a short
// run on real masters (shared by the file, flushed between cells). Keys stay under the prefix.
const test = mastersSuite('client kinds × features', { count: 3, flushEach: true });
const probes = probesEach(test);

interface Kind {
  readonly name: string;
  readonly prefix: string;
  /** The members of one Redlock (each Redlock its own clients, as another process would have). */
  members(urls: readonly string[]): Promise<MemberEntry[]>;
}

async function ready<T extends Redis | Redis6 | Valkey>(clients: T[]): Promise<T[]> {
  for (const client of clients) {
    client.on('error', () => undefined);
    closing.push(() => client.quit().then(() => undefined, () => undefined));
  }
  await Promise.all(clients.map((client) => (client.status === 'ready' ? Promise.resolve() : new Promise((resolve) => client.once('ready', resolve)))));
  return clients;
}

const kKinds: readonly Kind[] = [
  { name: 'URLs', prefix: '', members: (urls) => Promise.resolve([...urls]) },
  { name: 'ioredis 5 with keyPrefix', prefix: 'app:', members: (urls) => ready(urls.map((url) => new Redis(url, { keyPrefix: 'app:' }))) },
  { name: 'ioredis 6', prefix: '', members: (urls) => ready(urls.map((url) => new Redis6(url))) },
  { name: 'iovalkey', prefix: '', members: (urls) => ready(urls.map((url) => new Valkey(url))) },
];

let closing: (() => Promise<void>)[] = [];
const opened: Redlock[] = [];

async function open(kind: Kind, urls: readonly string[]): Promise<Redlock> {
  const redlock = new Redlock(await kind.members(urls), { nodeTimeout: 200 });
  opened.push(redlock);
  return redlock;
}

test.after.each(async () => {
  await Promise.allSettled(opened.splice(0).map((redlock) => redlock.quit({ keepClients: true })));
  await Promise.allSettled(closing.splice(0).map((close) => close()));
  closing = [];
});

type Feature = (open: () => Promise<Redlock>) => Promise<void>;

const kFeatures: Readonly<Record<string, Feature>> = {
  'wait and wake': async (open) => {
    const [holder, waiter] = [await open(), await open()];
    const held = await holder.acquire(['wake'], 5000);
    // A schedule far longer than the hold: only the release's wake-up brings it in soon.
    const waiting = waiter.acquire(['wake'], 5000, { retryDelay: 3000, retryJitter: 0, retryCount: 2 });
    await delay(300);
    const released = performance.now();
    await held.release();
    const lock = await waiting;
    const took = performance.now() - released;
    await lock.release();
    // Refused at least 300 ms before the release, its timer would retry 2,700 ms after it at the soonest.
    assert.ok(took < 2500, `woken by the release: the lock taken ${took.toFixed(0)} ms after it`);
  },
  'using() with watchHeld': async (open) => {
    const redlock = await open();
    const aborted = await redlock.using(['watched'], 1000, { watchHeld: true }, async (signal) => {
      await delay(1300);
      return signal.aborted;
    });
    assert.is(aborted, false);
  },
  semaphore: async (open) => {
    const [a, b] = [await open(), await open()];
    const permits = [await a.semaphore('sem', 2).acquire(5000), await a.semaphore('sem', 2).acquire(5000)];
    const third = b.semaphore('sem', 2).acquire(5000, { retryDelay: 3000, retryJitter: 0, retryCount: 2 });
    await delay(300);
    await permits[0]!.release();
    await (await third).release();
    await permits[1]!.release();
  },
  'read/write lock': async (open) => {
    const [a, b] = [await open(), await open()];
    const readers = [await a.readWriteLock('doc').readLock(5000), await a.readWriteLock('doc').readLock(5000)];
    const writer = b.readWriteLock('doc').writeLock(5000, { retryDelay: 100, retryCount: 50 });
    await delay(200);
    for (const reader of readers) await reader.release();
    await (await writer).release();
  },
  reentrant: async (open) => {
    const reentrant = new ReentrantRedlock(await open());
    await reentrant.using(['re'], 2000, async () => {
      const nested = await reentrant.acquire(['re'], 2000);
      await nested.release();
    });
  },
  'run-once': async (open) => {
    const [a, b] = [await open(), await open()];
    const options = { windowMs: 60_000, leaseMs: 2000, maxAttempts: 1 };
    assert.is((await runOnce(a, 'job', options, () => Promise.resolve(1))).status, 'ran');
    assert.is((await runOnce(b, 'job', options, () => Promise.resolve(2))).status, 'already-done');
  },
  'election campaign, leader, resign': async (open) => {
    const [a, b] = [await open(), await open()];
    const timing = { lease: 1500, renewDeadline: 600, retryPeriod: 100 };
    const first = await a.election('el', timing).campaign({ value: 'a' });
    const second = b.election('el', timing).campaign({ value: 'b' });
    assert.equal(await b.election('el', timing).leader(), { term: first.term, value: 'a' });
    await first.resign();
    const next = await second;
    assert.ok(next.term > first.term);
    assert.equal(await a.election('el', timing).leader(), { term: next.term, value: 'b' });
    await next.resign();
  },
};

for (const kind of kKinds) {
  for (const [feature, run] of Object.entries(kFeatures)) {
    test(`${kind.name} × ${feature}`, timed(15_000, async ({ masters }) => {
      await run(() => open(kind, masters.urls));
      // Nothing outside the clients' prefix (with none, nothing to check).
      if (kind.prefix === '') return;
      for (const probe of probes) {
        for await (const keys of probe.scanIterator({ COUNT: 1000 })) {
          for (const key of [keys].flat()) assert.ok(key.startsWith(kind.prefix), `${key} outside ${kind.prefix}`);
        }
      }
    }));
  }
}

test.run();
