import '../helpers/setup.js';
import { setTimeout as delay } from 'node:timers/promises';
import * as assert from 'uvu/assert';
import { mastersSuite } from '../helpers/masters.js';
import { closeAll, commandCalls, connectAll, eventually, type Probe } from '../helpers/redis.js';
import { timed } from '../helpers/timeout.js';
import { valkeyServer } from '../helpers/valkey.js';
import { MisconfigurationError, Redlock, runOnce, type MemberCapabilities } from '../../src/index.js';
import { startMasters } from '../../src/testing/masters.js';
import { runDoctor } from '../../tools/src/ops/doctor.js';
import { aclLines } from '../../tools/src/cli/doctor.js';
import { prometheusMetrics } from '../../src/metrics/index.js';
import { Registry } from 'prom-client';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { NODE_CALL_CHANNEL } from '../../src/engine/channels.js';

/**
 * The script-free path on real Valkey 9 masters (always Valkey, whatever the tier): single-key
 * extend and release as SET IFEQ and DELIFEQ, scripts only where nothing else can do; a user denied
 * @scripting; a member whose commands change under it (an ACL change, a restart into Redis 7).
 */
const test = mastersSuite('native commands', { count: 5, healEach: true, flushEach: true, redisServer: valkeyServer() });

let probes: Probe[] = [];

test.before.each(async ({ masters }) => {
  probes = await connectAll(masters.urls);
});

test.after.each(async () => {
  await Promise.all(probes.map((probe) => probe.sendCommand(['ACL', 'DELUSER', 'app']).catch(() => undefined)));
  await Promise.all(probes.map((probe) => probe.sendCommand(['ACL', 'SETUSER', 'default', '+@all']).catch(() => undefined)));
  await closeAll(probes);
});

const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);
const scriptCalls = async (): Promise<number> => sum(await commandCalls(probes, 'evalsha')) + sum(await commandCalls(probes, 'eval'));
const resetStats = (): Promise<unknown> => Promise.all(probes.map((probe) => probe.sendCommand(['CONFIG', 'RESETSTAT'])));
const keysLeft = async (): Promise<number> => sum(await Promise.all(probes.map((probe) => probe.dbSize())));

/** One acquire → extend → release, then a using() that auto-extends once. */
async function lifecycle(redlock: Redlock, key: string): Promise<void> {
  const lock = await redlock.acquire([key], 1000);
  const extended = await lock.extend(1000);
  await extended.release();
  await redlock.using([`${key}:using`], 600, { automaticExtensionThreshold: 400 }, async (signal) => {
    await delay(450);
    assert.not.ok(signal.aborted);
  });
}

/** An ACL user `app` on every master: everything but `denied`. */
async function aclUser(urls: readonly string[], denied: string): Promise<string[]> {
  await Promise.all(probes.map((probe) => probe.sendCommand(['ACL', 'SETUSER', 'app', 'on', '>pw', '~*', '&*', '+@all', denied])));
  return urls.map((url) => url.replace('redis://', 'redis://app:pw@'));
}

test('Valkey 9, default settings: a single-key cycle, and using() with its renewal, run no script (SET and DELIFEQ); scripts where nothing else can do', timed(15000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { retryCount: 0 });
  try {
    await redlock.ready();
    assert.equal(redlock.capabilities().map((c) => [c.probed, c.setIfEq, c.deleteIfEq, c.scripting, c.extend, c.release]), masters.urls.map(() => [true, true, 'DELIFEQ', true, 'SET IFEQ', 'DELIFEQ']));
    await resetStats();
    for (let i = 0; i < 5; i++) await lifecycle(redlock, `native:${i}`);
    assert.is(await scriptCalls(), 0, 'no EVALSHA or EVAL for single-key locks');
    assert.ok((await commandCalls(probes, 'set')).every((n) => n >= 5 * 4), 'SET NX and SET IFEQ');
    assert.equal(await commandCalls(probes, 'delifeq'), masters.urls.map(() => 5 * 2), 'one DELIFEQ per release per master');
    // Fifty at once: their extends and releases go natively too; the acquisitions of the one tick
    // ride one script call per master (docs/decisions/0007-native-commands.md).
    const locks = await Promise.all(Array.from({ length: 50 }, (_, i) => redlock.acquire([`many:${i}`], 1000)));
    await Promise.all(locks.map(async (lock) => (await lock.extend(1000)).release()));
    assert.equal(await commandCalls(probes, 'delifeq'), masters.urls.map(() => 5 * 2 + 50));
    assert.ok((await scriptCalls()) <= 5, `${await scriptCalls()} script calls for one tick's acquisitions`);
    assert.is(await keysLeft(), 0);
    // A multi-key acquisition is one MSETEX (Valkey 9.1); its release and fenced locks still run their scripts.
    const before = sum(await commandCalls(probes, 'evalsha'));
    await (await redlock.acquire(['m:1', 'm:2'], 1000)).release();
    assert.equal(await commandCalls(probes, 'msetex'), masters.urls.map(() => 1), 'one MSETEX per master');
    await (await redlock.acquire(['f:1'], 1000, { fencing: true })).release();
    assert.ok(sum(await commandCalls(probes, 'evalsha')) - before >= 15, 'the multi-key release, the fenced acquire and release');
  } finally {
    await redlock.quit();
  }
}));

test('MSETEX (Valkey 9.1): a multi-resource acquisition sets every key or none on each master, and a lost one is undone where it won', timed(15000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { retryCount: 0 });
  try {
    await redlock.ready();
    assert.ok(redlock.capabilities().every((c) => c.msetex), 'every master has MSETEX');
    // One of the keys held by someone else on three masters: those refuse the whole lock and set neither key.
    await Promise.all(probes.slice(0, 3).map((probe) => probe.set('all:b', 'other', { PX: 10_000 })));
    await resetStats();
    const refused = await redlock.acquire(['all:a', 'all:b'], 5000).then(() => undefined, (e: unknown) => e);
    assert.ok(refused instanceof Error, 'no quorum');
    assert.equal(await commandCalls(probes, 'msetex'), masters.urls.map(() => 1), 'one MSETEX per master, no script');
    assert.is(await scriptCalls() > 0, true, 'the two masters that granted it are undone (an owner-checked release script)');
    await eventually(async () => (await Promise.all(probes.map((probe) => probe.exists('all:a')))).every((n) => n === 0), 3000, 'all:a undone');
    assert.equal(await Promise.all(probes.map((probe) => probe.get('all:b'))), ['other', 'other', 'other', null, null]);
    // Free everywhere: taken on all five, both keys, with the lock's ttl.
    await Promise.all(probes.slice(0, 3).map((probe) => probe.del('all:b')));
    const lock = await redlock.acquire(['all:a', 'all:b'], 5000);
    // Decided at a quorum: the other masters' MSETEX may still be on its way.
    await eventually(async () => (await Promise.all(probes.map((probe) => probe.exists('all:b')))).every((n) => n === 1), 3000, 'set on all five');
    const ttls = await Promise.all(probes.flatMap((probe) => [probe.pTTL('all:a'), probe.pTTL('all:b')]));
    assert.ok(ttls.every((ttl) => ttl > 4000 && ttl <= 5000), `PTTLs ${ttls.join(', ')}`);
    assert.equal(await Promise.all(probes.map((probe) => probe.get('all:b'))), masters.urls.map(() => lock.value));
    await (await lock.release()).complete();
    assert.is(await keysLeft(), 0);
  } finally {
    await redlock.quit();
  }
}));

test("commands: 'scripts' runs the same cycle by script (the Redis 7 path): no DELIFEQ, no SET IFEQ", timed(15000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { retryCount: 0, commands: 'scripts' });
  try {
    await redlock.ready();
    await resetStats();
    for (let i = 0; i < 3; i++) await lifecycle(redlock, `scripts:${i}`);
    assert.equal(await commandCalls(probes, 'delifeq'), [0, 0, 0, 0, 0]);
    assert.ok((await commandCalls(probes, 'evalsha')).every((n) => n >= 3 * 2), 'extends and releases by script');
    assert.is(await keysLeft(), 0);
  } finally {
    await redlock.quit();
  }
}));

test('a DELIFEQ release wakes a waiter within a round trip of its retry delay', timed(15000, async ({ masters }) => {
  const holder = new Redlock(masters.urls, { retryCount: 0 });
  const waiter = new Redlock(masters.urls, { retryCount: 5, retryDelay: 5000, retryJitter: 0 });
  try {
    await Promise.all([holder.ready(), waiter.ready()]);
    const lock = await holder.acquire(['wake'], 10_000);
    const t0 = performance.now();
    const waiting = waiter.acquire(['wake'], 10_000);
    await delay(200);
    await lock.release();
    const woken = await waiting;
    const ms = performance.now() - t0;
    assert.ok(ms < 2000, `acquired after ${ms.toFixed(0)} ms; the retry delay is 5000`);
    await woken.release();
  } finally {
    await Promise.all([holder.quit(), waiter.quit()]);
  }
}));

test('a user denied @scripting: single-key locks, using() and wake-ups work; what needs a script fails at the call, named', timed(20000, async ({ masters }) => {
  const urls = await aclUser(masters.urls, '-@scripting');
  const redlock = new Redlock(urls, { retryCount: 0 });
  const waiter = new Redlock(urls, { retryCount: 5, retryDelay: 5000, retryJitter: 0 });
  const errors: unknown[] = [];
  redlock.on('error', (error) => errors.push(error));
  try {
    await Promise.all([redlock.ready(), waiter.ready()]);
    assert.equal(redlock.capabilities().map((c) => [c.scripting, c.extend, c.release]), masters.urls.map(() => [false, 'SET IFEQ', 'DELIFEQ']));
    for (let i = 0; i < 3; i++) await lifecycle(redlock, `acl:${i}`);
    // Waiting: woken by the release, with no gate and no handover (both scripts).
    const held = await redlock.acquire(['acl:wait'], 10_000);
    const t0 = performance.now();
    const waiting = waiter.acquire(['acl:wait'], 10_000);
    await delay(200);
    await held.release();
    await (await waiting).release();
    assert.ok(performance.now() - t0 < 2000, 'woken, not polled');
    const cases: [string, () => Promise<unknown>, RegExp][] = [
      ['several resources', () => redlock.acquire(['a', 'b'], 1000), /a lock on several resources/],
      ['fencing', () => redlock.acquire(['f'], 1000, { fencing: true }), /fencing tokens/],
      ['semaphore', () => redlock.semaphore('pool', 2).acquire(1000), /a semaphore/],
      ['read/write', () => redlock.readWriteLock('doc').readLock(1000), /a read\/write lock/],
      ['runOnce', () => runOnce(redlock, 'job', { windowMs: 60_000, leaseMs: 1000, maxAttempts: 3 }, () => Promise.resolve(1)), /runOnce/],
    ];
    for (const [name, call, feature] of cases) {
      const error = await call().then(() => undefined, (e: unknown) => e);
      assert.instance(error, MisconfigurationError, name);
      const m = error as MisconfigurationError;
      assert.is(m.reason, 'noscripting', name);
      assert.match(m.message, feature, name);
      assert.match(m.message, /runs no scripts for this user \(NOPERM/, name);
      assert.match(m.fix, /\+@scripting/, name);
    }
    await eventually(async () => (await keysLeft()) === 0, 3000, 'no key left behind');
    assert.equal(errors.filter((e) => /NOPERM/.test(String(e)) && !/runs no scripts/.test(String(e))), [], 'no raw NOPERM reported');
  } finally {
    await Promise.all([redlock.quit(), waiter.quit()]);
  }
}));

test('Redis 7.0 and a user denied @scripting: ready() says the server needs the native commands or scripting', timed(20000, async () => {
  const redis = await startMasters({ count: 3, redisServer: 'redis-server' });
  const own = await connectAll(redis.urls);
  try {
    await Promise.all(own.map((probe) => probe.sendCommand(['ACL', 'SETUSER', 'app', 'on', '>pw', '~*', '&*', '+@all', '-@scripting'])));
    const redlock = new Redlock(redis.urls.map((url) => url.replace('redis://', 'redis://app:pw@')), { retryCount: 0 });
    try {
      const error = await redlock.ready().then(() => undefined, (e: unknown) => e);
      assert.instance(error, MisconfigurationError);
      assert.match(String(error), /runs no scripts for this user and has neither SET … IFEQ nor DELIFEQ\/DELEX/);
      assert.match((error as MisconfigurationError).fix, /\+@scripting.*Valkey 9\.0\+, Redis 8\.4\+/);
      // A lock can be taken (SET NX) but not released owner-checked: the release names why.
      const lock = await redlock.acquire(['r7'], 1000);
      const released = await lock.release().then(() => undefined, (e: unknown) => e);
      assert.instance(released, MisconfigurationError);
      assert.match(String(released), /releasing a lock without DELIFEQ \(Valkey 9\.0\+\) or DELEX/);
    } finally {
      await redlock.quit();
    }
  } finally {
    await closeAll(own);
    await redis.close();
  }
}));

test('an ACL change takes DELIFEQ away: the release falls back to the script, said once per member (event and metric), and nothing is lost or left', timed(15000, async ({ masters }) => {
  const registry = new Registry();
  const metrics = prometheusMetrics({ registry });
  const redlock = new Redlock(masters.urls, { retryCount: 0 });
  const changes: MemberCapabilities[] = [];
  redlock.on('capability', (change: MemberCapabilities) => changes.push(change));
  const gauge = async (operation: string): Promise<number[]> => {
    const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === 'pipelock_master_script_free')!;
    return masters.urls.map((url) => (metric.values as { value: number; labels: Record<string, string> }[]).find((v) => v.labels.master === new URL(url).host && v.labels.operation === operation)?.value ?? NaN);
  };
  try {
    await redlock.ready();
    assert.equal(await gauge('release'), [1, 1, 1, 1, 1], 'script-free since the probe');
    const locks = await Promise.all([0, 1, 2].map((i) => redlock.acquire([`acl-change:${i}`], 10_000)));
    await Promise.all(probes.map((probe) => probe.sendCommand(['ACL', 'SETUSER', 'default', '-delifeq'])));
    for (const lock of locks) {
      const result = await lock.release();
      assert.ok(result.released >= 3, `released on ${result.released} masters`);
      // The release resolved at the quorum; the others' fallback resends may still be out.
      await result.complete();
    }
    assert.is(await keysLeft(), 0);
    const fallbacks = changes.filter((c) => c.reason === 'fallback');
    assert.equal(fallbacks.map((c) => [c.release, c.extend]).sort(), masters.urls.map(() => ['script', 'SET IFEQ']));
    assert.match(String(fallbacks[0]!.error), /NOPERM.*'delifeq'/);
    assert.equal(await gauge('release'), [0, 0, 0, 0, 0]);
    assert.equal(await gauge('extend'), [1, 1, 1, 1, 1]);
    const counter = (await registry.getMetricsAsJSON()).find((m) => m.name === 'pipelock_master_capability_changes_total')!;
    assert.is((counter.values as { labels: Record<string, string> }[]).filter((v) => v.labels.reason === 'fallback' && v.labels.release === 'script').length, 5);
  } finally {
    await redlock.quit();
    metrics.close();
  }
}));

test('pipelock doctor tells each member\'s commands: script-free on Valkey 9; denied @scripting there is a warning (single-key locks work), not a hazard', timed(30000, async ({ masters }) => {
  const options = { clockIntervalMs: 100, driftFactor: 0.01, nodeTimeoutMs: 250, key: 'pipelock:doctor' };
  const plain = await runDoctor(masters.urls.slice(0, 3), options);
  assert.equal(plain.masters.map((m) => m.native), [0, 1, 2].map(() => ({ setIfEq: true, deleteIfEq: 'DELIFEQ', msetex: true })));
  assert.ok(plain.findings.some((f) => f.check === 'commands' && /script-free \(SET IFEQ, DELIFEQ\), and a lone multi-key acquisition as one MSETEX/.test(f.message)));
  // The ready ACL line grants MSETEX where the server has it (Redis 7 would refuse to grant an unknown command).
  assert.match(aclLines(plain, 'app', 'locks:*').at(-1)!, / \+delifeq \+msetex /);
  const urls = await aclUser(masters.urls, '-@scripting');
  const denied = await runDoctor(urls.slice(0, 3), options);
  const acl = denied.findings.filter((f) => f.check === 'acl');
  assert.equal(acl.map((f) => f.severity), ['warning', 'warning', 'warning']);
  assert.match(acl[0]!.message, /may not run EVALSHA, SCRIPT LOAD/);
  assert.match(acl[0]!.consequence, /single-key locks still work here/);
}));

test('a lock key replaced by a value of another type reads "not ours" the same natively and by script: extend is refused, release finds it expired', timed(20000, async ({ masters }) => {
  const outcomes: string[][] = [];
  for (const commands of ['auto', 'scripts'] as const) {
    const redlock = new Redlock(masters.urls, { retryCount: 0, commands });
    try {
      await redlock.ready();
      const seen: string[] = [];
      for (const step of ['extend', 'release'] as const) {
        const key = `typed:${commands}:${step}`;
        const lock = await redlock.acquire([key], 10_000);
        // Another writer's hash where the lock was, on a quorum (3 of 5): the lock is no longer held there.
        await Promise.all(probes.slice(0, 3).map(async (probe) => {
          await probe.del(key);
          await probe.hSet(key, 'field', 'value');
        }));
        const outcome = step === 'extend'
          ? await lock.extend(10_000).then(() => 'extended', (e: unknown) => (e as Error).name)
          : await lock.release().then((r) => (r.expired ? 'expired' : 'released'), (e: unknown) => (e as Error).name);
        seen.push(`${step}: ${outcome}`);
        await Promise.all(probes.map((probe) => probe.del(key)));
      }
      outcomes.push(seen);
    } finally {
      await redlock.quit();
    }
  }
  assert.equal(outcomes[0], outcomes[1], 'natively (Valkey 9: SET IFEQ, DELIFEQ) as by script');
  assert.equal(outcomes[1], ['extend: LockLostError', 'release: expired']);
}));

test('an ACL key pattern that leaves out the probe key: each server is judged by its version (Redis 7: scripts; Valkey 9: native), and no call falls back', timed(20000, async ({ masters }) => {
  const redis = await startMasters({ count: 3, redisServer: 'redis-server' });
  const own = await connectAll(redis.urls);
  try {
    const limited = async (servers: readonly Probe[], urls: readonly string[]): Promise<string[]> => {
      await Promise.all(servers.map((probe) => probe.sendCommand(['ACL', 'SETUSER', 'app', 'on', '>pw', '~app:*', '&*', '+@all'])));
      return urls.map((url) => url.replace('redis://', 'redis://app:pw@'));
    };
    for (const [server, urls, expected] of [
      ['Redis 7', await limited(own, redis.urls), [false, undefined]],
      ['Valkey 9', await limited(probes.slice(0, 3), masters.urls.slice(0, 3)), [true, 'DELIFEQ']],
    ] as const) {
      const redlock = new Redlock(urls, { retryCount: 0 });
      const changes: MemberCapabilities[] = [];
      redlock.on('capability', (change: MemberCapabilities) => changes.push(change));
      try {
        await redlock.ready();
        assert.equal(redlock.capabilities().map((c) => [c.setIfEq, c.deleteIfEq]), [expected, expected, expected], server);
        const lock = await redlock.acquire(['app:k'], 2000);
        await (await lock.extend(2000)).release();
        assert.equal(changes.filter((c) => c.reason === 'fallback'), [], `${server}: a call fell back`);
      } finally {
        await redlock.quit();
      }
    }
  } finally {
    await closeAll(own);
    await redis.close();
  }
}));

test('a command an ACL change took away comes back on the same connection once the ACL gives it back (the member is asked again)', timed(20000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { retryCount: 0 });
  const changes: MemberCapabilities[] = [];
  redlock.on('capability', (change: MemberCapabilities) => changes.push(change));
  try {
    await redlock.ready();
    await Promise.all(probes.map((probe) => probe.sendCommand(['ACL', 'SETUSER', 'default', '-delifeq'])));
    const lock = await redlock.acquire(['comeback'], 10_000);
    await (await lock.release()).complete();
    await eventually(() => redlock.capabilities().every((c) => c.release === 'script'), 3000, 'every member fell back');
    await Promise.all(probes.map((probe) => probe.sendCommand(['ACL', 'SETUSER', 'default', '+delifeq'])));
    await eventually(() => redlock.capabilities().every((c) => c.release === 'DELIFEQ'), 8000, 'DELIFEQ back on every member');
    assert.ok(changes.filter((c) => c.reason === 'probe' && c.release === 'DELIFEQ').length >= 5, 'told by a probe');
  } finally {
    await redlock.quit();
  }
}));

test('an acquisition resent after NOSCRIPT behind its own (native) undo is undone again: no key is left for its TTL', timed(20000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { retryCount: 0, nodeTimeout: 5000 });
  try {
    await redlock.ready();
    // A rival holds k on masters 1-3, so the acquisition of k is lost there while master 0 is paused.
    await Promise.all([1, 2, 3].map((i) => probes[i]!.set('k', 'rival', { PX: 30_000 })));
    await probes[0]!.sendCommand(['SCRIPT', 'FLUSH']);
    masters.masters[0]!.pause();
    // Both attempts are decided once masters 1-4 answered (4 calls); master 0 resumes then, within its budget.
    let answered = 0;
    const decided = new Promise<void>((resolve) => {
      const count = (): void => {
        if (++answered < 4) return;
        unsubscribe(NODE_CALL_CHANNEL, count);
        setImmediate(resolve);
      };
      subscribe(NODE_CALL_CHANNEL, count);
    });
    // Two in one tick ride one script call; the lost one's undo goes alone, natively (DELIFEQ),
    // behind it on master 0, which answers NOSCRIPT, then takes the resent call: SET NX k succeeds there.
    const calls = Promise.allSettled([redlock.acquire(['k'], 30_000), redlock.acquire(['k2'], 30_000)]);
    await decided;
    masters.masters[0]!.resume();
    const [lost, won] = await calls;
    assert.is(lost.status, 'rejected');
    assert.is(won.status, 'fulfilled');
    const held = (won as PromiseFulfilledResult<Awaited<ReturnType<Redlock['acquire']>>>).value;
    await eventually(async () => (await probes[0]!.get('k2')) === held.value, 3000, 'the resent call answered');
    await eventually(async () => (await probes[0]!.get('k')) === null, 3000, 'the late grant of k undone on master 0');
    await held.release();
  } finally {
    masters.masters[0]!.resume();
    await redlock.quit();
  }
}));

test('a stall that ends with an answer refused for scripting (the fallback path) sends the releases kept for it', timed(20000, async ({ masters }) => {
  const urls = await aclUser(masters.urls, '+@all');
  const redlock = new Redlock(urls, { retryCount: 0, nodeTimeout: 1000 });
  const errors: Error[] = [];
  redlock.on('error', (error: Error) => errors.push(error));
  try {
    await redlock.ready();
    const kept = await redlock.acquire(['kept'], 30_000);
    // Master 0 stops running scripts for this user (pipelock does not know yet), then stalls.
    await probes[0]!.sendCommand(['ACL', 'SETUSER', 'app', '-@scripting']);
    masters.masters[0]!.pause();
    await redlock.acquire(['stall'], 30_000);
    // Its vote on master 0 times out after nodeTimeout: master 0 is stalled from then on.
    await delay(1200);
    // The first call after goes to master 0 as the stall's probe: a script call (fenced), to be refused for scripting.
    const probe = redlock.acquire(['p1'], 30_000, { fencing: true }).catch((e: unknown) => e);
    // Not sent to the stalled master while the probe is out: kept for when the stall ends.
    await kept.release();
    assert.ok(errors.some((e) => e.name === 'NodeStalledError'), `the release was not kept: ${errors.map(String).join('; ')}`);
    // The probe is answered in time, refused: the stall ends in the fallback path.
    masters.masters[0]!.resume();
    await probe;
    await eventually(async () => (await probes[0]!.get('kept')) === null, 3000, 'the kept release sent to master 0');
  } finally {
    masters.masters[0]!.resume();
    await redlock.quit();
  }
}));

test('a member restarted into Redis 7.0 (a failover onto an older server): renewals and the release go by script there, the lock is never lost, no key is left', timed(20000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { retryCount: 0 });
  const changes: MemberCapabilities[] = [];
  redlock.on('capability', (change: MemberCapabilities) => changes.push(change));
  try {
    await redlock.ready();
    await redlock.using(['restart'], 600, { automaticExtensionThreshold: 400 }, async (signal) => {
      await masters.masters[0]!.restart({ redisServer: 'redis-server' });
      await eventually(() => redlock.capabilities()[0]!.probed && !redlock.capabilities()[0]!.setIfEq, 5000, 'member 0 probed again');
      // Several renewals across the change.
      await delay(1200);
      assert.not.ok(signal.aborted, 'the lock was not lost');
    });
    assert.equal(redlock.capabilities()[0], { member: 0, name: redlock.capabilities()[0]!.name, probed: true, setIfEq: false, deleteIfEq: undefined, scripting: true, msetex: false, extend: 'script', release: 'script' });
    assert.ok(changes.some((c) => c.member === 0 && c.reason === 'probe' && !c.setIfEq), 'the probe at reconnect told the change');
    await closeAll(probes);
    probes = await connectAll(masters.urls);
    await eventually(async () => (await keysLeft()) === 0, 3000, 'no key left behind');
  } finally {
    await redlock.quit();
  }
}));

test.run();
