import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { setTimeout as delay } from 'node:timers/promises';
import { mastersSuite, probesEach } from '../helpers/masters.js';
import { eventually } from '../helpers/redis.js';
import { timed } from '../helpers/timeout.js';
import { ExecutionError, Redlock } from '../../src/index.js';
import { internals } from '../../src/redlock.js';

// A regression test for a bug the simulation found (npm run simulate, mutex-valkey seed 111; commit
// d410d41): a won acquisition's grant that a slow master answered past its budget was undone
// (Leftovers.late) after an extension of the lock, queued behind it on that master, had counted that
// master's key in its quorum. Here on real servers: the master SIGSTOPped, the extension sent while the
// acquisition still had budget left, the master resumed once the acquisition had timed out there.
const test = mastersSuite('late grant', { count: 5, healEach: true, flushEach: true });
const probes = probesEach(test);

// The acquisition's budget, time enough on a loaded machine to set up the extension within it; the
// extension's is longer, so the resumed master answers it in time.
const kAcquireBudget = 1_500;

test('a late grant on a slow master that an extension of the held lock counted is not undone: the extended lock keeps its quorum and a rival cannot take it', timed(20_000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { retryCount: 0, nodeTimeout: 10_000 });
  const rival = new Redlock(masters.urls, { retryCount: 0, nodeTimeout: 2_000 });
  try {
    await eventually(() => internals(redlock).masters.nodes.every((node) => node.transport.isReady), 5000, 'pipelock connected to every master');
    await rival.ready();
    masters.masters[2]!.pause();
    const lock = await redlock.acquire(['late'], 10_000, { nodeTimeout: kAcquireBudget });
    const acquiredAt = performance.now();
    // The extension must need master 2: masters 3 and 4 lose the key, so it counts 0, 1 and 2.
    await eventually(async () => (await probes[3]!.get('late')) === lock.value && (await probes[4]!.get('late')) === lock.value, 2000, 'masters 3 and 4 hold the lock');
    await probes[3]!.del('late');
    await probes[4]!.del('late');
    // Sent to master 2 behind the acquisition, before the acquisition's budget runs out there.
    const extending = lock.extend(10_000);
    const sentBefore = performance.now();
    // The acquisition's vote on master 2 timed out (its stats settle once every master's vote is in).
    const stats = await lock.attempts[0]!;
    assert.ok(sentBefore - acquiredAt < kAcquireBudget, `the extension was sent ${Math.round(sentBefore - acquiredAt)} ms after the acquisition, within its ${kAcquireBudget} ms budget`);
    assert.is(stats.votesFor.size, 4, 'the acquisition won on the four others, master 2 timed out');
    masters.masters[2]!.resume();
    // Master 2 runs the acquisition (its grant, answered late) and then the extension (in time).
    const extended = await extending;
    assert.ok(extended.validity > 5_000, `extended, validity ${extended.validity}`);
    // Anything the late grant's reply queued for master 2 (an undo) went before this on the same connection.
    const marker = await redlock.acquire(['marker'], 1_000);
    await marker.attempts[0];
    await marker.release();
    // Masters 0, 1 and 2 hold it: a rival finds only two free.
    const taken = await rival.acquire(['late'], 10_000).then((rivalLock) => rivalLock, (error: unknown) => error);
    assert.instance(taken, ExecutionError, `a rival took the lock while the holder was told it had ${Math.round(extended.validity)} ms left`);
    assert.is(await probes[2]!.get('late'), extended.value, 'master 2 still holds the extended lock\'s key');
    await extended.release();
  } finally {
    if (masters.masters[2]!.paused) masters.masters[2]!.resume();
    await redlock.quit();
    await rival.quit();
  }
}));

// The same race after extend() had replaced the Lock (simulation, mutex seed 4381): the late grant
// was judged by the first Lock, which reads validity 0 once replaced, so its undo went out and
// deleted the key that a second extension, queued before it on that master, had just counted.
test('a late grant is not undone while a Lock extend() replaced holds its keys', timed(20_000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { retryCount: 0, nodeTimeout: 10_000 });
  const rival = new Redlock(masters.urls, { retryCount: 0, nodeTimeout: 2_000 });
  try {
    await eventually(() => internals(redlock).masters.nodes.every((node) => node.transport.isReady), 5000, 'pipelock connected to every master');
    await rival.ready();
    masters.masters[2]!.pause();
    const first = await redlock.acquire(['late'], 10_000, { nodeTimeout: kAcquireBudget });
    // Decided on the four others; its command to master 2 waits there behind the acquisition.
    const second = await first.extend(10_000);
    assert.is(first.validity, 0, 'extend() replaced the first Lock');
    await eventually(async () => (await probes[3]!.get('late')) === first.value && (await probes[4]!.get('late')) === first.value, 2000, 'masters 3 and 4 hold the lock');
    await probes[3]!.del('late');
    await probes[4]!.del('late');
    // Needs master 2 now: it counts 0, 1 and 2.
    const extending = second.extend(10_000);
    // The acquisition's vote on master 2 times out, so its grant comes back late.
    const stats = await first.attempts[0]!;
    assert.is(stats.votesFor.size, 4, 'the acquisition won on the four others, master 2 timed out');
    masters.masters[2]!.resume();
    const extended = await extending;
    assert.ok(extended.validity > 5_000, `extended, validity ${extended.validity}`);
    const marker = await redlock.acquire(['marker'], 1_000);
    await marker.attempts[0];
    await marker.release();
    const taken = await rival.acquire(['late'], 10_000).then((rivalLock) => rivalLock, (error: unknown) => error);
    assert.instance(taken, ExecutionError, `a rival took the lock while the holder was told it had ${Math.round(extended.validity)} ms left`);
    assert.is(await probes[2]!.get('late'), extended.value, 'master 2 still holds the extended lock\'s key');
    await extended.release();
  } finally {
    if (masters.masters[2]!.paused) masters.masters[2]!.resume();
    await redlock.quit();
    await rival.quit();
  }
}));

test('a late grant is not undone while the waiter the lock was passed to holds its keys', timed(20_000, async ({ masters }) => {
  // A drift allowance of 5% leaves a lock that waited 50 ms well within what can be passed on.
  const redlock = new Redlock(masters.urls, { retryCount: 0, nodeTimeout: 10_000, driftFactor: 0.05 });
  const rival = new Redlock(masters.urls, { retryCount: 0, nodeTimeout: 2_000 });
  try {
    await eventually(() => internals(redlock).masters.nodes.every((node) => node.transport.isReady), 5000, 'pipelock connected to every master');
    await rival.ready();
    masters.masters[2]!.pause();
    const first = await redlock.acquire(['late'], 10_000, { nodeTimeout: kAcquireBudget });
    // A caller of the same process, refused by the other four, asleep until the release.
    const waiting = redlock.acquire(['late'], 10_000, { retryCount: 20, retryDelay: 5_000, retryJitter: 0 });
    await delay(50);
    await first.release();
    const held = await waiting;
    assert.is(held.value, first.value, 'passed as it stands (same token), not handed over');
    await probes[3]!.del('late');
    await probes[4]!.del('late');
    const extending = held.extend(10_000);
    const stats = await first.attempts[0]!;
    assert.is(stats.votesFor.size, 4, 'the acquisition won on the four others, master 2 timed out');
    masters.masters[2]!.resume();
    const extended = await extending;
    assert.ok(extended.validity > 5_000, `extended, validity ${extended.validity}`);
    const marker = await redlock.acquire(['marker'], 1_000);
    await marker.attempts[0];
    await marker.release();
    const taken = await rival.acquire(['late'], 10_000).then((rivalLock) => rivalLock, (error: unknown) => error);
    assert.instance(taken, ExecutionError, `a rival took the lock while the waiter was told it had ${Math.round(extended.validity)} ms left`);
    assert.is(await probes[2]!.get('late'), extended.value, 'master 2 still holds the extended lock\'s key');
    await extended.release();
  } finally {
    if (masters.masters[2]!.paused) masters.masters[2]!.resume();
    await redlock.quit();
    await rival.quit();
  }
}));

test.run();
