import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { createCluster } from '@redis/client';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli } from '../helpers/cli.js';
import { clustersSuite, keysOnShard, shardOfKey } from '../helpers/clusters.js';
import { timed } from '../helpers/timeout.js';
import { ExecutionError, InvalidArgumentError, Redlock, ReentrantRedlock, runOnce, type Lock } from '../../src/index.js';

// Redis Cluster members: three local clusters of three shards each (masters only).
const test = clustersSuite('cluster members', { clusters: 3, shards: 3, flushEach: true });

const fast = { retryCount: 0, nodeTimeout: 500 };
const seeds = (urls: readonly string[]): { cluster: readonly string[] } => ({ cluster: urls });

/** How many script calls (EVALSHA + EVAL) a shard has run, from INFO commandstats. */
async function scriptCalls(command: (args: readonly string[]) => Promise<unknown>): Promise<number> {
  const info = await command(['INFO', 'commandstats']) as string;
  let calls = 0;
  for (const match of info.matchAll(/cmdstat_(?:evalsha|eval):calls=(\d+)/g)) calls += Number(match[1]);
  return calls;
}

test('one cluster as the only member: 30 locks on 3 shards in one tick take one script call per slot group, and extend and release', timed(20000, async ({ clusters }) => {
  const cluster = clusters.clusters[0]!;
  const redlock = new Redlock([seeds(cluster.urls)], fast);
  try {
    await redlock.ready();
    // 10 resources on each shard, all under one hash tag per shard: one slot per shard.
    const tags = [0, 1, 2].map((shard) => keysOnShard(cluster, shard, 1, 'tag')[0]!);
    const resources = tags.flatMap((tag) => Array.from({ length: 10 }, (_, i) => `{${tag}}:r${i}`));
    const before = await Promise.all([0, 1, 2].map((shard) => scriptCalls((args) => cluster.command(shard, args))));
    const locks = await Promise.all(resources.map((resource) => redlock.acquire([resource], 5000)));
    const after = await Promise.all([0, 1, 2].map((shard) => scriptCalls((args) => cluster.command(shard, args))));
    // Coalesced per slot: one EVALSHA per shard for its ten locks (plus none for the others).
    assert.equal(after.map((n, shard) => n - before[shard]!), [1, 1, 1]);
    for (const [i, lock] of locks.entries()) {
      assert.is(await cluster.command(Math.floor(i / 10), ['GET', resources[i]!]), lock.value);
    }
    await Promise.all(locks.map((lock) => lock.extend(60_000)));
    const pttl = await cluster.command(2, ['PTTL', resources[29]!]) as number;
    assert.ok(pttl > 5000, `extended: ${pttl}`);
    // Held: a second acquisition is refused with the member's vote against.
    const refused = await redlock.acquire([resources[15]!], 5000).catch((error: unknown) => error);
    assert.instance(refused, ExecutionError);
    const results = await Promise.all(locks.map((lock) => lock.release()));
    assert.ok(results.every((result) => result.released), 'every release counted');
    for (const shard of [0, 1, 2]) assert.is(await cluster.command(shard, ['DBSIZE']), 0);
  } finally {
    await redlock.quit();
  }
}));

test('a given createCluster client is a member, and quit({ keepClients: true }) leaves it open', timed(20000, async ({ clusters }) => {
  const cluster = createCluster({ rootNodes: clusters.clusters[1]!.urls.map((url) => ({ url })) });
  cluster.on('error', () => undefined);
  await cluster.connect();
  const redlock = new Redlock([cluster], fast);
  try {
    const keys = [0, 1, 2].map((shard) => keysOnShard(clusters.clusters[1]!, shard, 1, 'given')[0]!);
    const locks = await Promise.all(keys.map((key) => redlock.acquire([key], 5000)));
    for (const [shard, lock] of locks.entries()) assert.is(await clusters.clusters[1]!.command(shard, ['GET', keys[shard]!]), lock.value);
    await Promise.all(locks.map((lock) => lock.release()));
    await redlock.quit({ keepClients: true });
    assert.ok(cluster.isOpen, 'the caller\'s cluster stays open');
    assert.is(await cluster.sendCommand(keys[0], false, ['EXISTS', keys[0]!]), 0);
  } finally {
    await cluster.close();
  }
}));

test('an ioredis Cluster is a member beside an @redis/client cluster and seed URLs', timed(20000, async ({ clusters }) => {
  const { Cluster } = await import('ioredis');
  const nodes = clusters.clusters[0]!.shards.map((shard) => ({ host: shard.master.host, port: shard.master.port }));
  // The user's options that would change what a lock command means; pipelock's own duplicate turns them off.
  const ioCluster = new Cluster(nodes, { enableAutoPipelining: true });
  ioCluster.on('error', () => undefined);
  const given = createCluster({ rootNodes: clusters.clusters[1]!.urls.map((url) => ({ url })) });
  given.on('error', () => undefined);
  await given.connect();
  const redlock = new Redlock([ioCluster, given, seeds(clusters.clusters[2]!.urls)], fast);
  try {
    await redlock.ready();
    const keys = [0, 1, 2].flatMap((shard) => keysOnShard(clusters.clusters[0]!, shard, 3, 'io'));
    const locks = await Promise.all(keys.map((key) => redlock.acquire([key], 5000)));
    for (const lock of locks) assert.is((await lock.attempts[0]!).votesFor.size, 3);
    for (const [i, key] of keys.entries()) assert.is(await clusters.clusters[0]!.command(Math.floor(i / 3), ['GET', key]), locks[i]!.value);
    await Promise.all(locks.map((lock) => lock.extend(5000)));
    const results = await Promise.all(locks.map((lock) => lock.release()));
    assert.ok(results.every((result) => result.released));
    for (const shard of [0, 1, 2]) assert.is(await clusters.clusters[0]!.command(shard, ['DBSIZE']), 0);
  } finally {
    await redlock.quit();
  }
}));

test('three clusters: four contenders on three hot resources (one per shard) never overlap', timed(30000, async ({ clusters }) => {
  const members = clusters.clusters.map((c) => seeds(c.urls));
  const contenders = Array.from({ length: 4 }, () => new Redlock(members, { retryCount: -1, retryDelay: 2, retryJitter: 2, nodeTimeout: 500 }));
  try {
    await Promise.all(contenders.map((c) => c.ready()));
    const resources = [0, 1, 2].map((shard) => keysOnShard(clusters.clusters[0]!, shard, 1, 'hot')[0]!);
    const holders = new Map<string, Lock>();
    let overlaps = 0;
    let cycles = 0;
    const worker = async (redlock: Redlock, resource: string): Promise<void> => {
      while (cycles < 600) {
        const lock = await redlock.acquire([resource], 1000);
        if (holders.has(resource)) overlaps++;
        holders.set(resource, lock);
        await new Promise((resolve) => setImmediate(resolve));
        holders.delete(resource);
        cycles++;
        await lock.release();
      }
    };
    await Promise.all(contenders.flatMap((redlock) => resources.map((resource) => worker(redlock, resource))));
    assert.is(overlaps, 0);
    assert.ok(cycles >= 600);
  } finally {
    await Promise.all(contenders.map((c) => c.quit()));
  }
}));

test('resources of two slots are refused with InvalidArgumentError naming resources; under one hash tag a lock is all-or-nothing per member', timed(20000, async ({ clusters }) => {
  const redlock = new Redlock(clusters.clusters.map((c) => seeds(c.urls)), fast);
  try {
    const error = await redlock.acquire(['a', 'b'], 5000).catch((e: unknown) => e);
    assert.instance(error, InvalidArgumentError);
    assert.ok((error as InvalidArgumentError).message.startsWith('resources must all hash to one slot'), (error as Error).message);
    assert.ok((error as Error).message.includes('hash tag'));
    // Nothing was written anywhere.
    for (const c of clusters.clusters) for (const shard of [0, 1, 2]) assert.is(await c.command(shard, ['DBSIZE']), 0);
    // Fencing needs its counters in the resource's slot too: a plain name gets its counter tagged.
    const fenced = await redlock.acquire(['plain'], 5000, { fencing: true });
    assert.ok(fenced.fence! > 0);
    await fenced.release();
    // One key of a tagged pair is taken on member 0: member 0 refuses the pair whole (the other
    // key stays unset there), members 1 and 2 grant it, and the lock holds on 2 of 3.
    await clusters.clusters[0]!.command(shardOfKey(clusters.clusters[0]!, '{pair}:a'), ['SET', '{pair}:a', 'someone']);
    const lock = await redlock.acquire(['{pair}:a', '{pair}:b'], 5000);
    assert.is(await clusters.clusters[0]!.command(shardOfKey(clusters.clusters[0]!, '{pair}:b'), ['EXISTS', '{pair}:b']), 0);
    const stats = await lock.attempts[0]!;
    assert.is(stats.votesFor.size, 2);
    await lock.release();
  } finally {
    await redlock.quit();
  }
}));

test('lock kinds on cluster members: a semaphore and a read/write lock under a hash tag, reentrant nesting; an untagged name is refused', timed(30000, async ({ clusters }) => {
  const redlock = new Redlock(clusters.clusters.map((c) => seeds(c.urls)), fast);
  try {
    // A semaphore's slot and counter keys share the slot of its tagged name.
    const semaphore = redlock.semaphore('{exports}', 2);
    const a = await semaphore.acquire(5000);
    const b = await semaphore.acquire(5000);
    assert.instance(await semaphore.acquire(5000).catch((e: unknown) => e), ExecutionError, 'a third holder of two permits is refused');
    await a.release();
    const c = await semaphore.acquire(5000);
    await Promise.all([b.release(), c.release()]);
    const untagged = await redlock.semaphore('exports', 2).acquire(5000).catch((e: unknown) => e);
    assert.instance(untagged, InvalidArgumentError);
    assert.ok((untagged as Error).message.includes('hash tag'), (untagged as Error).message);
    // Many readers or one writer.
    const rw = redlock.readWriteLock('{catalog}');
    const r1 = await rw.readLock(5000);
    const r2 = await rw.readLock(5000);
    assert.instance(await rw.writeLock(5000).catch((e: unknown) => e), ExecutionError, 'no writer beside readers');
    await Promise.all([r1.release(), r2.release()]);
    const w = await rw.writeLock(5000, { retryCount: 20, retryDelay: 50 });
    assert.instance(await rw.readLock(5000).catch((e: unknown) => e), ExecutionError, 'no reader beside the writer');
    await w.release();
    // Reentrant: the nest is one lock on the members.
    const reentrant = new ReentrantRedlock(redlock);
    const fence = await reentrant.using(['{job}:1'], 5000, { fencing: true }, () => reentrant.using(['{job}:1'], 5000, () => Promise.resolve('inner')));
    assert.is(fence, 'inner');
    for (const cl of clusters.clusters) for (const shard of [0, 1, 2]) {
      const keys = await cl.command(shard, ['KEYS', '*']) as string[];
      assert.equal(keys.filter((k) => !k.includes('permits-released') && !k.startsWith('pipelock:fence')), [], `nothing held is left on shard ${shard}`);
    }
  } finally {
    await redlock.quit();
  }
}));

test('fencing tokens strictly increase, autoExtend renews and runOnce runs once on cluster members', timed(20000, async ({ clusters }) => {
  const members = clusters.clusters.map((c) => seeds(c.urls));
  const runners = Array.from({ length: 3 }, () => new Redlock(members, { retryCount: 3, retryDelay: 20, nodeTimeout: 500 }));
  const redlock = runners[0]!;
  try {
    let last = 0;
    for (let i = 0; i < 20; i++) {
      const lock = await runners[i % 3]!.acquire(['{fenced}:x'], 2000, { fencing: true });
      assert.ok(lock.fence! > last, `fence ${lock.fence} after ${last}`);
      last = lock.fence!;
      await lock.release();
    }
    // A 300 ms lock renewed past three of its TTLs is still held on every member.
    const renewed = await redlock.acquire(['renewed'], 300, { autoExtend: true });
    await new Promise((resolve) => setTimeout(resolve, 900));
    assert.not.ok(renewed.signal!.aborted);
    for (const c of clusters.clusters) assert.is(await c.command(shardOfKey(clusters.clusters[0]!, 'renewed'), ['GET', 'renewed']), renewed.value);
    await renewed.release();
    let runs = 0;
    const windowEnd = Date.now() + 60_000;
    const job = async (): Promise<string> => {
      runs++;
      await new Promise((resolve) => setTimeout(resolve, 100));
      return 'done';
    };
    const outcomes = await Promise.all(runners.map((r) => runOnce(r, 'nightly', { windowEnd, leaseMs: 1000, maxAttempts: 3 }, job)));
    assert.is(runs, 1);
    assert.is(outcomes.filter((o) => o.status === 'ran').length, 1);
    const again = await runOnce(runners[1]!, 'nightly', { windowEnd, leaseMs: 1000, maxAttempts: 3 }, job);
    assert.is(again.status, 'already-done');
  } finally {
    await Promise.all(runners.map((r) => r.quit()));
  }
}));

test('a shard that lost its scripts (SCRIPT FLUSH) gets the call again as EVAL, of either script', timed(20000, async ({ clusters }) => {
  const cluster = clusters.clusters[2]!;
  const redlock = new Redlock([seeds(cluster.urls)], fast);
  try {
    await redlock.ready();
    const keys = [0, 1, 2].map((shard) => keysOnShard(cluster, shard, 1, 'flushed')[0]!);
    // Two locks per slot so that each call is a script call, not a lone SET NX: single-key locks
    // make a LEAN_SCRIPT call, two-key locks a BATCH_SCRIPT call.
    for (const resources of [(key: string, i: number) => [`{${key}}:${i}`], (key: string, i: number) => [`{${key}}:${i}`, `{${key}}:${i}:b`]]) {
      await Promise.all([0, 1, 2].map((shard) => cluster.command(shard, ['SCRIPT', 'FLUSH'])));
      const locks = await Promise.all(keys.flatMap((key) => [redlock.acquire(resources(key, 1), 5000), redlock.acquire(resources(key, 2), 5000)]));
      assert.is(locks.length, 6);
      const results = await Promise.all(locks.map((lock) => lock.release()));
      assert.ok(results.every((result) => result.released));
    }
  } finally {
    await redlock.quit();
  }
}));

test('pipelock loadtest --servers takes redis+cluster:// members and leaves no key behind', timed(60000, async ({ clusters }) => {
  const dir = await mkdtemp(join(tmpdir(), 'pipelock-cluster-load-'));
  try {
    const json = join(dir, 'c.json');
    const servers = clusters.clusters.map((c) => c.urls[0]!.replace('redis://', 'redis+cluster://')).join(',');
    const run = await cli(['loadtest', '--servers', servers, '--workers', '1', '--concurrency', '8', '--duration', '1', '--warmup', '0.2', '--keys', '300', '--json', json]);
    assert.is(run.code, 0, run.stderr);
    const result = JSON.parse(await readFile(json, 'utf8')) as { cycles: number; errors: Record<string, number> };
    assert.ok(result.cycles > 0, 'cycles > 0');
    assert.equal(result.errors, {});
    for (const c of clusters.clusters) for (const shard of [0, 1, 2]) assert.is(await c.command(shard, ['DBSIZE']), 0);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}));

test('bad cluster entries are typed errors naming the entry', () => {
  assert.throws(() => new Redlock([{ cluster: [] }]), (e: Error) => e instanceof InvalidArgumentError && e.message.startsWith('clients[0].cluster must be a non-empty array'));
  assert.throws(() => new Redlock([{ cluster: ['http://x:1'] }]), (e: Error) => e instanceof InvalidArgumentError && e.message.startsWith('clients[0].cluster[0] must be a redis:// or rediss:// URL'));
  assert.throws(() => new Redlock([{ cluster: ['redis://h:1'] }, { cluster: ['redis://h:2', 'redis://h:1'] }]), (e: Error) => e instanceof InvalidArgumentError && e.message.startsWith('clients[1] must not repeat clients[0]'));
});

test.run();
