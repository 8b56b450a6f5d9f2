import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { mastersSuite } from '../helpers/masters.js';
import { closeAll, connectAll, eventually, valuesOf, type Probe } from '../helpers/redis.js';
import { rejection } from '../helpers/reject.js';
import { timed } from '../helpers/timeout.js';
import { ExecutionError, Lock, Redlock, ResourceLockedError } from '../../src/index.js';
import { abortedAt } from '../helpers/aborted.js';

// Happy paths and contention over 5 healthy masters; faults live in redlock-faults.test.ts.
const test = mastersSuite('redlock', { count: 5, flushEach: true });

let probes: Probe[] = [];
let redlock: Redlock;
test.before(async ({ masters }) => {
  probes = await connectAll(masters.urls);
  redlock = new Redlock(masters.urls);
  await redlock.ready();
});
/** Locks are decided at the third vote; the last two masters apply them a moment later. */
function allHold(key: string, value: string): Promise<void> {
  return eventually(async () => (await valuesOf(probes, key)).every((v) => v === value), 1000, `every master holds ${key}`);
}

test.after(async () => {
  await redlock.quit();
  await closeAll(probes);
});

test('acquire sets the token with the duration on every master; release deletes it everywhere', timed(5000, async () => {
  const lock = await redlock.acquire(['r1'], 2000);
  assert.instance(lock, Lock);
  assert.equal(lock.resources, ['r1']);
  assert.match(lock.value, /^[A-Za-z0-9_-]{27}$/);
  await allHold('r1', lock.value);
  for (const probe of probes) {
    const pttl = await probe.pTTL('r1');
    assert.ok(pttl > 1900 && pttl <= 2000, `pttl ${pttl}`);
  }
  assert.ok(lock.validity <= 2000 - 22 && lock.validity > 1800, `validity ${lock.validity}`);
  assert.ok(Math.abs(lock.expiration - (Date.now() + lock.validity)) < 50);
  const stats = await lock.attempts[0]!;
  assert.is(stats.membershipSize, 5);
  assert.is(stats.quorumSize, 3);
  assert.is(stats.votesFor.size + stats.votesAgainst.size, 5);
  const result = await (await lock.release()).complete();
  assert.is(result.released, 5);
  assert.is(result.expired, false);
  assert.equal(result.nodes.map((n) => n.vote), ['for', 'for', 'for', 'for', 'for']);
  assert.is(lock.expiration, 0);
  assert.equal(await valuesOf(probes, 'r1'), Array(5).fill(null));
}));

test('validity is duration − elapsed − drift: validUntil lies within the call\'s own time span less the whole drift allowance, for acquire and extend', timed(10_000, async ({ masters }) => {
  // Validity counts from the attempt's send (src/lifecycle/validity.ts), which lies between the
  // clock readings either side of the call: so validUntil is in [before, after] + duration − drift.
  // Drift allowances of 1,002 and 602 ms are far wider than a call's span, so validity without
  // the allowance lands above the range in every run, whatever the machine's timing.
  for (const { driftFactor, duration } of [{ driftFactor: 0.1, duration: 10_000 }, { driftFactor: 0.01, duration: 60_000 }]) {
    const allowance = Math.round(duration * driftFactor) + 2;
    const client = new Redlock(masters.urls, { driftFactor });
    try {
      await client.ready();
      for (let i = 0; i < 3; i++) {
        let before = performance.now();
        const lock = await client.acquire([`drift:${duration}:${i}`], duration);
        let after = performance.now();
        assert.ok(lock.validUntil >= before + duration - allowance && lock.validUntil <= after + duration - allowance, `acquire: validUntil − before = ${(lock.validUntil - before).toFixed(1)} ms, the call took ${(after - before).toFixed(1)} ms, duration − drift = ${duration - allowance} ms`);
        before = performance.now();
        const extended = await lock.extend(duration);
        after = performance.now();
        assert.ok(extended.validUntil >= before + duration - allowance && extended.validUntil <= after + duration - allowance, `extend: validUntil − before = ${(extended.validUntil - before).toFixed(1)} ms, the call took ${(after - before).toFixed(1)} ms, duration − drift = ${duration - allowance} ms`);
        await extended.release();
      }
    } finally {
      await client.quit();
    }
  }
}));

test('lock.attempts read after every master answered (a held lock keeps a compact record) report the same votes', timed(5000, async () => {
  await probes[0]!.set('late', 'someone-else');
  const split = await redlock.acquire(['late'], 2000);
  const whole = await redlock.acquire(['late-all'], 2000);
  await allHold('late-all', whole.value);
  await eventually(async () => (await valuesOf(probes, 'late')).filter((v) => v === split.value).length === 4, 1000, 'four masters hold late');
  const stats = await split.attempts[0]!;
  assert.is(stats.membershipSize, 5);
  assert.is(stats.quorumSize, 3);
  assert.is(stats.votesFor.size, 4);
  assert.is(stats.votesAgainst.size, 1);
  const [against] = [...stats.votesAgainst.values()];
  assert.instance(against, ResourceLockedError);
  assert.is(against!.message, 'The operation was applied to: 0 of the 1 requested resources.');
  const all = await whole.attempts[0]!;
  assert.is(all.votesFor.size, 5);
  assert.is(all.votesAgainst.size, 0);
  assert.is(whole.attempts.length, 1);
  await split.release();
  await whole.release();
}));

test('multi-resource lock is all-or-nothing on each master and leaves no key behind on failure', timed(5000, async () => {
  const other = await redlock.acquire(['b'], 5000);
  await allHold('b', other.value);
  assert.instance(await rejection(redlock.acquire(['a', 'b', 'c'], 5000, { retryCount: 0 })), ResourceLockedError);
  for (const key of ['a', 'c']) assert.equal(await valuesOf(probes, key), Array(5).fill(null));
  assert.equal(await valuesOf(probes, 'b'), Array(5).fill(other.value));
  await other.release();
  const lock = await redlock.acquire(['a', 'b', 'c'], 5000);
  for (const key of ['a', 'b', 'c']) await allHold(key, lock.value);
  assert.is((await (await lock.release()).complete()).released, 5);
}));

test('contention between two Redlock instances: per-node votes against, retries, then success after release', timed(5000, async ({ masters }) => {
  const rival = new Redlock(masters.urls, { retryCount: 2, retryDelay: 20, retryJitter: 5 });
  try {
    const held = await redlock.acquire(['hot'], 5000);
    // The lock is decided at the third vote; let the last two masters apply it too, so that every
    // vote below is deterministic (otherwise the rival may win the race on a late master).
    await allHold('hot', held.value);
    const error = await rival.acquire(['hot'], 5000).then(() => undefined, (e: unknown) => e);
    assert.instance(error, ResourceLockedError);
    assert.instance(error, ExecutionError);
    const e = error as ResourceLockedError;
    assert.is(e.code, 'ERR_PIPELOCK_RESOURCE_LOCKED');
    assert.is(e.attempts.length, 3);
    assert.equal(e.nodes.map((n) => n.vote), ['against', 'against', 'against', 'against', 'against']);
    assert.equal(e.nodes.map((n) => n.name), masters.masters.map((m) => `${m.host}:${m.port}`));
    const stats = await e.attempts[0]!;
    assert.is(stats.votesAgainst.size, 5);
    assert.instance([...stats.votesAgainst.values()][0], ResourceLockedError);
    // The rival left nothing: the key still holds the first lock's token everywhere.
    assert.equal(await valuesOf(probes, 'hot'), Array(5).fill(held.value));
    const waiting = rival.acquire(['hot'], 5000, { retryCount: 50 });
    await held.release();
    const won = await waiting;
    // A retry in flight during the release may have met a master before the delete did: the
    // rival then holds a quorum, not necessarily all five.
    assert.ok((await valuesOf(probes, 'hot')).filter((v) => v === won.value).length >= 3);
    await won.release();
  } finally {
    await rival.quit();
  }
}));

test('extend re-arms the TTL on every master, returns a new lock and invalidates the old one', timed(5000, async () => {
  const lock = await redlock.acquire(['ext'], 500);
  const extended = await lock.extend(3000);
  assert.is(lock.expiration, 0);
  assert.is(lock.validity, 0);
  assert.is(extended.value, lock.value);
  assert.is(extended.extensions, 1);
  assert.ok(extended.validity > 2800, `validity ${extended.validity}`);
  for (const probe of probes) assert.ok((await probe.pTTL('ext')) > 2800);
  await extended.release();
}));

test('extend of a lock deleted behind its back fails with LockLostError; of an expired one with LockExpiredError', timed(5000, async () => {
  const lock = await redlock.acquire(['gone'], 5000);
  await Promise.all(probes.map((p) => p.del('gone')));
  const lost = await lock.extend(5000).then(() => undefined, (e: unknown) => e as ExecutionError);
  assert.is(lost?.code, 'ERR_PIPELOCK_LOCK_LOST');
  const short = await redlock.acquire(['short'], 30);
  await new Promise((resolve) => setTimeout(resolve, 40));
  const expired = await short.extend(1000).then(() => undefined, (e: unknown) => e as ExecutionError);
  assert.is(expired?.code, 'ERR_PIPELOCK_LOCK_EXPIRED');
  assert.is(expired?.message, 'Cannot extend an already-expired lock.');
}));

test('maxExtensions bounds extension (typed error), counting across extend() calls', timed(5000, async () => {
  const lock = await redlock.acquire(['bounded'], 2000, { maxExtensions: 1 });
  const once = await lock.extend(2000, { maxExtensions: 1 });
  const error = await once.extend(2000, { maxExtensions: 1 }).then(() => undefined, (e: unknown) => e as ExecutionError);
  assert.is(error?.code, 'ERR_PIPELOCK_EXTENSION_LIMIT');
  await once.release();
}));

test('releasing an expired lock reports it instead of throwing', timed(5000, async () => {
  const lock = await redlock.acquire(['exp'], 30);
  await eventually(async () => (await valuesOf(probes, 'exp')).every((v) => v === null), 1000, 'keys expire');
  const result = await (await lock.release()).complete();
  assert.is(result.expired, true);
  assert.is(result.released, 0);
  assert.equal(result.nodes.map((n) => n.vote), ['against', 'against', 'against', 'against', 'against']);
}));

test('using() extends past several durations and releases at the end', timed(8000, async () => {
  let during: (string | null)[] = [];
  const result = await redlock.using(['job'], 300, { automaticExtensionThreshold: 150 }, async (signal) => {
    await new Promise((resolve) => setTimeout(resolve, 1100));
    during = await valuesOf(probes, 'job');
    return signal.aborted ? 'aborted' : 'done';
  });
  assert.is(result, 'done');
  assert.is(new Set(during).size, 1);
  assert.ok(during[0] !== null);
  assert.equal(await valuesOf(probes, 'job'), Array(5).fill(null));
}));

test('using() aborts the signal with LockLostError when the key is deleted behind its back', timed(8000, async () => {
  const reason = await redlock.using(['victim'], 400, { automaticExtensionThreshold: 200 }, async (signal) => {
    await Promise.all(probes.map((p) => p.del('victim')));
    await abortedAt(signal);
    return signal.reason as ExecutionError;
  });
  assert.is(reason.code, 'ERR_PIPELOCK_LOCK_LOST');
}));

test('using() releases and rethrows when the routine throws', timed(5000, async () => {
  const boom = new Error('boom');
  const error = await redlock.using(['thrower'], 2000, () => Promise.reject(boom)).then(() => undefined, (e: unknown) => e);
  assert.is(error, boom);
  assert.equal(await valuesOf(probes, 'thrower'), Array(5).fill(null));
}));

test('an aborted signal stops retrying with LockAbortedError and leaves the rival lock intact', timed(5000, async () => {
  const held = await redlock.acquire(['abort'], 5000);
  await allHold('abort', held.value);
  const controller = new AbortController();
  const waiting = redlock.acquire(['abort'], 5000, { retryCount: -1, retryDelay: 20, retryJitter: 5, signal: controller.signal });
  setTimeout(() => { controller.abort(new Error('enough')); }, 100);
  const error = await waiting.then(() => undefined, (e: unknown) => e as ExecutionError);
  assert.is(error?.code, 'ERR_PIPELOCK_ABORTED');
  assert.is((error?.cause as Error).message, 'enough');
  assert.ok((error?.attempts.length ?? 0) >= 2);
  assert.equal(await valuesOf(probes, 'abort'), Array(5).fill(held.value));
  await held.release();
}));

test('works with the caller\'s own @redis/client clients; quit() closes them as v5 does, unless keepClients', timed(5000, async ({ masters }) => {
  for (const keepClients of [true, false]) {
    const clients = await connectAll(masters.urls);
    const own = new Redlock(clients);
    const lock = await own.acquire(['own'], 1000);
    await allHold('own', lock.value);
    await lock.release();
    await own.quit({ keepClients });
    assert.is(clients.every((c) => c.isOpen), keepClients);
    assert.is((await rejection(own.acquire(['own'], 1000))).name, 'RedlockClosedError');
    await closeAll(clients);
  }
}));

test('many concurrent locks on distinct keys all succeed and leave nothing behind', timed(10000, async () => {
  const locks = await Promise.all(Array.from({ length: 2000 }, (_, i) => redlock.acquire([`many:${i}`], 10000)));
  assert.is(new Set(locks.map((l) => l.value)).size, 2000);
  await eventually(async () => (await Promise.all(probes.map((p) => p.dbSize()))).every((n) => n === 2000), 2000, 'every master holds 2000 keys');
  const results = await Promise.all(locks.map(async (l) => (await l.release()).complete()));
  assert.ok(results.every((r) => r.released === 5));
  for (const probe of probes) assert.is(await probe.dbSize(), 0);
}));

test.run();
