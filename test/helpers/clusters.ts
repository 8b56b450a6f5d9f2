import { suite, type Test } from 'uvu';
import calculateSlot from 'cluster-key-slot';
import { startClusters, type LocalCluster, type LocalClusters, type StartClustersOptions } from '../../src/local/clusters.js';

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
