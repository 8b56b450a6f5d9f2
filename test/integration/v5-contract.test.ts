import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { mastersSuite } from '../helpers/masters.js';
import { closeAll, connectAll, eventually, valuesOf, type Probe } from '../helpers/redis.js';
import { rejection } from '../helpers/reject.js';
import { timed } from '../helpers/timeout.js';
import { CLIENT_KINDS, userClients, type ClientKind, type UserClients } from '../helpers/client-kinds.js';
import { ExecutionError, Lock, Redlock, ResourceLockedError, type ExecutionStats } from '../../src/index.js';
import { internals } from '../../src/redlock.js';
import { abortedAt } from '../helpers/aborted.js';

/*
 * node-redlock v5's public contract (its README and type declarations), held by pipelock for each
 * kind of client a v5 user may already have: the same suite runs once per kind. The intentional
 * differences are tested where they are documented (docs/migrating-from-node-redlock.md).
 */
for (const kind of CLIENT_KINDS) contract(kind);

function contract(kind: ClientKind): void {
  const test = mastersSuite(`v5 contract (${kind})`, { count: 5, flushEach: true });
  let probes: Probe[] = [];
  let users: UserClients;
  let redlock: Redlock;

  test.before(async ({ masters }) => {
    probes = await connectAll(masters.urls);
  });
  test.before.each(async ({ masters }) => {
    users = await userClients(kind, masters.urls);
    redlock = new Redlock(users.clients, { retryCount: 0 });
    // With ioredis clients pipelock opens a connection of its own beside each; ready() waits for all of them.
    await redlock.ready();
    assert.ok(internals(redlock).masters.nodes.every((node) => node.transport.isReady), 'pipelock connected to every master');
  });
  test.after.each(async () => {
    await redlock.quit();
    await users.close();
  });
  test.after(async () => {
    await closeAll(probes);
  });

  const allHold = (key: string, value: string | null): Promise<void> =>
    eventually(async () => (await valuesOf(probes, key)).every((v) => v === value), 1000, `every master holds ${key} = ${value}`);

  test('acquire: a Lock with resources, value, expiration and per-attempt stats naming the clients given', timed(5000, async () => {
    const before = Date.now();
    const lock = await redlock.acquire(['v5:a'], 2000);
    assert.instance(lock, Lock);
    assert.equal(lock.resources, ['v5:a']);
    assert.type(lock.value, 'string');
    assert.ok(lock.expiration > before && lock.expiration <= Date.now() + 2000, `expiration ${lock.expiration - before} ms ahead`);
    assert.is(lock.attempts.length, 1);
    const stats: ExecutionStats = await lock.attempts[0]!;
    assert.is(stats.membershipSize, 5);
    assert.is(stats.quorumSize, 3);
    assert.ok(stats.votesFor.size >= 3, `votesFor ${stats.votesFor.size}`);
    // v5 users find their own client objects in the stats, not pipelock's connections.
    for (const client of stats.votesFor) assert.ok(users.clients.includes(client as never), 'votesFor holds a client the user gave');
    assert.is(stats.votesAgainst.size, 0);
    await allHold('v5:a', lock.value);
    await lock.release();
    await allHold('v5:a', null);
  }));

  test('a held resource: ExecutionError after retryCount + 1 attempts, each with every master voting against', timed(5000, async () => {
    const held = await redlock.acquire(['v5:b'], 5000);
    // Every master holds it before the retries start: a read where its SET has not landed finds it free and wakes the caller.
    await allHold('v5:b', held.value);
    const error = await rejection(redlock.acquire(['v5:b'], 1000, { retryCount: 2, retryDelay: 10, retryJitter: 0 }), ExecutionError);
    assert.is(error.attempts.length, 3);
    for (const attempt of error.attempts) {
      const stats = await attempt;
      assert.is(stats.votesFor.size, 0);
      assert.is(stats.votesAgainst.size, 5);
      for (const [client, reason] of stats.votesAgainst) {
        assert.ok(users.clients.includes(client as never), 'votesAgainst is keyed by a client the user gave');
        assert.instance(reason, ResourceLockedError);
      }
    }
    await allHold('v5:b', held.value);
    await held.release();
  }));

  test("'error' events: one ResourceLockedError per master voting against, per attempt", timed(5000, async () => {
    const held = await redlock.acquire(['v5:c'], 5000);
    const heard: unknown[] = [];
    redlock.on('error', (error) => { heard.push(error); });
    await rejection(redlock.acquire(['v5:c'], 1000, { retryCount: 1, retryDelay: 10, retryJitter: 0 }), ExecutionError);
    assert.is(heard.length, 10);
    for (const error of heard) assert.instance(error, ResourceLockedError);
    await held.release();
  }));

  test('extend: a new Lock with the same value and a later expiration; the key lives on', timed(5000, async () => {
    const lock = await redlock.acquire(['v5:d'], 1000);
    const longer = await lock.extend(5000);
    assert.instance(longer, Lock);
    assert.is(longer.value, lock.value);
    assert.ok(longer.expiration > lock.expiration, 'expiration moved');
    for (const probe of probes) {
      const pttl = await probe.pTTL('v5:d');
      assert.ok(pttl > 1000, `pttl ${pttl}`);
    }
    const again = await redlock.extend(longer, 5000);
    await redlock.release(again);
    await allHold('v5:d', null);
  }));

  test('release resolves with the attempts; extending a released lock fails with ExecutionError', timed(5000, async () => {
    const lock = await redlock.acquire(['v5:e'], 5000);
    const result = await lock.release();
    assert.is(result.attempts.length, 1);
    assert.is((await result.attempts[0]!).votesFor.size >= 3, true);
    await rejection(lock.extend(1000), ExecutionError);
  }));

  test('using: the routine outlives the duration (auto-extended), the lock is released after', timed(8000, async () => {
    let value = '';
    const result = await redlock.using(['v5:f'], 600, { automaticExtensionThreshold: 300 }, async (signal) => {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      value = (await valuesOf(probes, 'v5:f'))[0] ?? '';
      assert.is(signal.aborted, false);
      return 'done';
    });
    assert.is(result, 'done');
    assert.ok(value !== '', 'still held after the first duration ran out');
    await allHold('v5:f', null);
  }));

  test('using: a lock lost on the majority aborts the signal with its error', timed(8000, async () => {
    const aborted = await redlock.using(['v5:g'], 600, { automaticExtensionThreshold: 300 }, async (signal) => {
      await Promise.all(probes.slice(0, 3).map((probe) => probe.set('v5:g', 'someone-else')));
      await abortedAt(signal);
      return signal;
    }).catch((error: unknown) => error);
    assert.ok(aborted instanceof AbortSignal, `expected the routine's signal, got ${String(aborted)}`);
    assert.is(aborted.aborted, true);
    assert.instance((aborted as { error?: unknown }).error, Error);
  }));

  test('quit() quits the clients it was given, as v5 does', timed(5000, async () => {
    await redlock.acquire(['v5:h'], 1000);
    await redlock.quit();
    for (let i = 0; i < users.clients.length; i++) assert.is(users.isOpen(i), false, `clients[${i}] closed`);
  }));

  test.run();
}
