import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { setImmediate as turn } from 'node:timers/promises';
import { mastersSuite, probesEach } from '../helpers/masters.js';
import type { LocalMasters } from '../../src/testing/masters.js';
import { eventually } from '../helpers/redis.js';
import { retrying } from '../helpers/retrying.js';
import { timed } from '../helpers/timeout.js';
import { ExecutionError, Redlock, type Lock } from '../../src/index.js';
import { internals } from '../../src/redlock.js';

// Regression tests for bugs the simulation found: a won acquisition's grant that a slow master
// answered past its budget was undone (Leftovers.late) after an extension of the lock, queued behind
// it on that master, had counted that master's key in its quorum (mutex-valkey seed 111; commit
// d410d41), and again once the Lock had been replaced by extend() or passed to a waiter (mutex seed
// 4381). Here on real servers: master 2 SIGSTOPped, the extension queued behind the acquisition
// there, master 2 resumed once the acquisition had timed out on it.
const test = mastersSuite('late grant', { count: 5, healEach: true, flushEach: true });
const probes = probesEach(test);

// The acquisition's budget, time enough on a loaded machine to set up the extension within it; the
// extension's is longer, so the resumed master answers it in time.
const kAcquireBudget = 1_500;

/** What a case sets up while master 2 is stopped: the acquisition, and the extension that needs master 2. */
interface Setup {
  readonly first: Lock;
  readonly extending: Promise<Lock>;
}

/**
 * Runs one case: `setUp` acquires 'late' while master 2 is stopped and leaves an extension queued
 * behind the acquisition there; then master 2 is resumed. The extended lock must keep masters 0, 1
 * and 2 (the key is deleted on 3 and 4), so a rival is refused and master 2 still holds its token.
 */
async function lateGrant(masters: LocalMasters, setUp: (redlock: Redlock) => Promise<Setup>): Promise<void> {
  const redlock = new Redlock(masters.urls, { retryCount: 0, nodeTimeout: 10_000 });
  const rival = new Redlock(masters.urls, { retryCount: 0, nodeTimeout: 2_000 });
  try {
    await eventually(() => internals(redlock).masters.nodes.every((node) => node.transport.isReady), 5000, 'pipelock connected to every master');
    await rival.ready();
    masters.masters[2]!.pause();
    const { first, extending } = await setUp(redlock);
    // The acquisition's vote on master 2 timed out (its stats settle once every master's vote is in).
    const stats = await first.attempts[0]!;
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
    assert.instance(taken, ExecutionError, `a rival took the lock while its holder was told it had ${Math.round(extended.validity)} ms left`);
    assert.is(await probes[2]!.get('late'), extended.value, 'master 2 still holds the extended lock\'s key');
    await extended.release();
  } finally {
    if (masters.masters[2]!.paused) masters.masters[2]!.resume();
    await redlock.quit();
    await rival.quit();
  }
}

/** Deletes the lock's key on masters 3 and 4 once they hold it: an extension then needs master 2. */
async function needMaster2(value: string): Promise<void> {
  await eventually(async () => (await probes[3]!.get('late')) === value && (await probes[4]!.get('late')) === value, 2000, 'masters 3 and 4 hold the lock');
  await probes[3]!.del('late');
  await probes[4]!.del('late');
}

test('a late grant on a slow master that an extension of the held lock counted is not undone: the extended lock keeps its quorum and a rival cannot take it', timed(20_000, ({ masters }) => lateGrant(masters, async (redlock) => {
  const first = await redlock.acquire(['late'], 10_000, { nodeTimeout: kAcquireBudget });
  const acquiredAt = performance.now();
  await needMaster2(first.value);
  // Sent to master 2 behind the acquisition, before the acquisition's budget runs out there.
  const extending = first.extend(10_000);
  const sentAfter = performance.now() - acquiredAt;
  assert.ok(sentAfter < kAcquireBudget, `the extension was sent ${Math.round(sentAfter)} ms after the acquisition, within its ${kAcquireBudget} ms budget`);
  return { first, extending };
})));

// The first Lock reads validity 0 once extend() replaced it: the late grant was judged by it.
test('a late grant is not undone while a Lock extend() replaced holds its keys', timed(20_000, ({ masters }) => lateGrant(masters, async (redlock) => {
  const first = await redlock.acquire(['late'], 10_000, { nodeTimeout: kAcquireBudget });
  // Decided on the four others; its command to master 2 waits there behind the acquisition.
  const second = await first.extend(10_000);
  assert.is(first.validity, 0, 'extend() replaced the first Lock');
  await needMaster2(first.value);
  return { first, extending: second.extend(10_000) };
})));

// The lock is passed on only while it has about the validity its waiter asks for (10 s less two drift allowances):
// taken for 30 s, it has that for the next 20 s, however long a loaded machine takes to see the waiter refused.
// (Taken for 10 s with a 5 % allowance, a run beside two busy loops released it 0.5 s too late: handed over, not passed.)
test('a late grant is not undone while the waiter the lock was passed to holds its keys', timed(20_000, ({ masters }) => lateGrant(masters, async (redlock) => {
  const first = await redlock.acquire(['late'], 30_000, { nodeTimeout: kAcquireBudget });
  // A caller of the same process, refused by the other four, asleep until the release.
  const asleep = retrying('late');
  const waiting = redlock.acquire(['late'], 10_000, { retryCount: 20, retryDelay: 5_000, retryJitter: 0 });
  await asleep;
  await turn();
  await first.release();
  const held = await waiting;
  assert.is(held.value, first.value, 'passed as it stands (same token), not handed over');
  await needMaster2(first.value);
  return { first, extending: held.extend(10_000) };
})));

test.run();
