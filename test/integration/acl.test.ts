/**
 * ACL grants that work: for each feature, a Redis ACL user with exactly aclGrants([feature]) runs
 * it against a real master (src/acl.ts derives the grants from the Lua sources and the table of what
 * is sent outside them), over @redis/client and, for waiting, ioredis; a user missing one grant gets
 * MisconfigurationError naming the command.
 */
import { createClient } from '@redis/client';
import { Redis } from 'ioredis';
import * as assert from 'uvu/assert';
import { aclGrants, aclSetUser, MisconfigurationError, Redlock, runOnce, type AclFeature, type AclGrants } from '../../src/index.js';
import { mastersSuite } from '../helpers/masters.js';
import { timed } from '../helpers/timeout.js';

const test = mastersSuite('acl grants', { count: 1, flushEach: true });
const kPattern = 'res:*';

/** Creates `user` with `grants` (as the ACL SETUSER line aclSetUser prints) and returns its URL. */
async function userWith(url: string, user: string, grants: AclGrants): Promise<string> {
  const admin = createClient({ url });
  await admin.connect();
  try {
    const words = aclSetUser(user, grants).split(' ').map((w) => (w === '>PASSWORD' ? '>pw' : w));
    await admin.sendCommand(['ACL', 'SETUSER', ...words.slice(2)]);
  } finally {
    await admin.close();
  }
  const at = new URL(url);
  return `redis://${user}:pw@${at.host}`;
}

const later = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Each feature as a user runs it: every call of it that sends something of its own. */
const kRuns: Readonly<Record<AclFeature, (redlock: Redlock) => Promise<void>>> = {
  lock: async (redlock) => {
    const one = await (await redlock.acquire(['res:a'], 1000)).extend(1000);
    await one.release();
    await (await redlock.acquire(['res:b', 'res:c'], 1000)).release();
    await redlock.using(['res:u'], 1000, async () => { await later(1); });
    const held = await redlock.acquire(['res:w'], 1000);
    const waiting = redlock.acquire(['res:w'], 1000, { retryCount: 20, retryDelay: 500 });
    setTimeout(() => void held.release(), 50);
    await (await waiting).release();
  },
  fencing: async (redlock) => { await (await redlock.acquire(['res:f'], 1000, { fencing: true })).release(); },
  runOnce: async (redlock) => {
    for (let i = 0; i < 2; i++) await runOnce(redlock, 'res:job', { windowMs: 60_000, leaseMs: 1000, maxAttempts: 2 }, () => Promise.resolve(1));
  },
  semaphore: async (redlock) => {
    const semaphore = redlock.semaphore('res:s', 1);
    const first = await semaphore.acquire(1000);
    const second = semaphore.acquire(1000, { retryCount: 20, retryDelay: 50 });
    setTimeout(() => void first.extend(1000).then((lock) => lock.release()), 30);
    await (await second).release();
  },
  rwlock: async (redlock) => {
    const rw = redlock.readWriteLock('res:rw');
    const read = await (await rw.readLock(1000)).extend(1000);
    const write = rw.writeLock(1000, { retryCount: 20, retryDelay: 50 });
    setTimeout(() => void read.release(), 30);
    await (await write).release();
  },
  watchHeld: async (redlock) => {
    const lock = await redlock.acquire(['res:h'], 600, { autoExtend: true, watchHeld: true });
    await later(450);
    assert.not.ok(lock.signal?.aborted === true, 'renewed and watched');
    await lock.release();
  },
  election: async (redlock) => {
    const election = redlock.election('res:el', { lease: 600 });
    const term = await election.campaign();
    assert.ok((await election.leader()) !== undefined);
    await later(350);
    await term.resign();
  },
};

for (const feature of Object.keys(kRuns) as AclFeature[]) {
  test(`a user with exactly aclGrants(['${feature}']) runs ${feature}`, timed(20_000, async ({ masters }) => {
    const url = await userWith(masters.urls[0]!, `u-${feature}`, aclGrants([feature], kPattern));
    const redlock = new Redlock([url], { retryCount: 3, retryDelay: 20 });
    try {
      await kRuns[feature](redlock);
    } finally {
      await redlock.quit();
    }
  }));
}

test('with ioredis clients (CLIENT ID, SUBSCRIBE for the tracking redirect), waiting and watchHeld work on the lock grants', timed(20_000, async ({ masters }) => {
  const url = await userWith(masters.urls[0]!, 'u-ioredis', aclGrants(['lock', 'watchHeld'], kPattern));
  const client = new Redis(url);
  const redlock = new Redlock([client], { retryCount: 3, retryDelay: 20 });
  try {
    await kRuns.lock(redlock);
    await kRuns.watchHeld(redlock);
  } finally {
    await redlock.quit();
  }
}));

test('a lock user with autoExtend hears a force-release as LockRevokedError: its refused renewal may read the marker beside the key', timed(20_000, async ({ masters }) => {
  const url = await userWith(masters.urls[0]!, 'u-revoked', aclGrants(['lock'], kPattern));
  const holder = new Redlock([url], { retryCount: 0 });
  const operator = new Redlock(masters.urls, { retryCount: 0 });
  try {
    const lock = await holder.acquire(['res:stuck'], 600, { autoExtend: true });
    const signal = lock.signal!;
    const aborted = new Promise((resolve) => { signal.addEventListener('abort', resolve, { once: true }); });
    await operator.forceRelease(['res:stuck'], { reason: 'stuck job' });
    await aborted;
    assert.is((signal.reason as Error).name, 'LockRevokedError', String(signal.reason));
  } finally {
    await holder.quit();
    await operator.quit();
  }
}));

for (const [feature, missing] of [['lock', 'set'], ['fencing', 'time'], ['rwlock', 'zadd']] as const) {
  test(`a ${feature} user missing +${missing} gets MisconfigurationError naming it`, timed(20_000, async ({ masters }) => {
    const grants = aclGrants([feature], kPattern);
    const url = await userWith(masters.urls[0]!, `u-no-${missing}`, { ...grants, commands: grants.commands.filter((c) => c !== missing) });
    const redlock = new Redlock([url], { retryCount: 3, retryDelay: 20 });
    try {
      const error: unknown = await kRuns[feature](redlock).then(() => undefined, (e: unknown) => e);
      assert.instance(error, MisconfigurationError, String(error));
      assert.is((error as MisconfigurationError).reason, 'noperm');
      assert.match((error as Error).message, new RegExp(`'${missing}'`, 'i'));
    } finally {
      await redlock.quit();
    }
  }));
}

test.run();
