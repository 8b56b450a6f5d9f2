import { suite, type Test } from 'uvu';
import calculateSlot from 'cluster-key-slot';
import { startClusters, type LocalCluster, type LocalClusters, type StartClustersOptions } from '../../src/testing/clusters.js';

export interface ClustersContext {
  clusters: LocalClusters;
}

/**
 * A suite whose context holds `clusters` (local Redis Clusters, masters only), started before its
 * first test and stopped after its last, like mastersSuite. With `flushEach`, every shard is
 * FLUSHALLed before each test.
 */
export function clustersSuite(name: string, options: StartClustersOptions & { flushEach?: boolean } = {}): Test<ClustersContext> {
  const { flushEach = false, ...startOptions } = options;
  let current: LocalClusters | undefined;
  const test = suite<ClustersContext>(name, {
    get clusters(): LocalClusters {
      if (current === undefined) throw new Error('clusters are not started: the suite\'s before hook failed or has not run');
      return current;
    },
  });
  test.before(async (context) => {
    try {
      current = await startClusters(startOptions);
    } catch (error) {
      console.error(`\n  ✘ ${context.__suite__}: starting clusters failed:`, error);
      throw error;
    }
  });
  if (flushEach) {
    test.before.each(async () => {
      await Promise.all(current!.masters.masters.filter((m) => m.running).map((master) => master.flush()));
    });
  }
  const run = test.run.bind(test);
  test.run = () => {
    test.after(async () => {
      await current?.close();
      current = undefined;
    });
    run();
  };
  return test;
}

/** Which shard of `cluster` owns `slot` (the fixture gives shards equal contiguous ranges). */
export function shardOfSlot(cluster: LocalCluster, slot: number): number {
  return Math.floor(slot / Math.ceil(16384 / cluster.shards.length));
}

/** `count` distinct keys starting with `prefix` whose slots the fixture gives to `shard`. */
export function keysOnShard(cluster: LocalCluster, shard: number, count: number, prefix = 'k'): string[] {
  const keys: string[] = [];
  for (let i = 0; keys.length < count; i++) {
    const key = `${prefix}${i}`;
    if (shardOfSlot(cluster, calculateSlot(key)) === shard) keys.push(key);
  }
  return keys;
}

/** Which shard of `cluster` owns `key`. */
export function shardOfKey(cluster: LocalCluster, key: string): number {
  return shardOfSlot(cluster, calculateSlot(key));
}

/**
 * Moves `slot` with its keys from shard `from` to shard `to` at once, the way redis-cli --cluster
 * reshard does (redis.io/docs/latest/commands/cluster-setslot/): IMPORTING on the target, MIGRATING
 * on the source, MIGRATE the keys, then NODE on the target, the source and every other shard.
 */
export async function moveSlot(cluster: LocalCluster, slot: number, from: number, to: number): Promise<number> {
  const target = cluster.shards[to]!;
  await cluster.command(to, ['CLUSTER', 'SETSLOT', String(slot), 'IMPORTING', cluster.shards[from]!.id]);
  await cluster.command(from, ['CLUSTER', 'SETSLOT', String(slot), 'MIGRATING', target.id]);
  let moved = 0;
  for (;;) {
    const keys = await cluster.command(from, ['CLUSTER', 'GETKEYSINSLOT', String(slot), '100']) as string[];
    if (keys.length === 0) break;
    await cluster.command(from, ['MIGRATE', target.master.host, String(target.master.port), '', '0', '5000', 'KEYS', ...keys]);
    moved += keys.length;
  }
  for (const shard of [to, from, ...cluster.shards.keys()].filter((s, i, all) => all.indexOf(s) === i)) {
    await cluster.command(shard, ['CLUSTER', 'SETSLOT', String(slot), 'NODE', target.id]);
  }
  return moved;
}
