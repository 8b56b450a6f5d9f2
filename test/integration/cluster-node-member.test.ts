import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { Redis } from 'ioredis';
import { cli } from '../helpers/cli.js';
import { clustersSuite, keysOnShard } from '../helpers/clusters.js';
import { rejection } from '../helpers/reject.js';
import { timed } from '../helpers/timeout.js';
import { MisconfigurationError, Redlock } from '../../src/index.js';

// A Redis Cluster node given as a standalone master (src/engine/capability.ts): named once, with
// the fix, from the API and the CLI, and never retried as if it were a refusal.
const test = clustersSuite('a cluster node given as a master', { clusters: 1, shards: 3 });

test('one node as the only master: ready() and every acquire fail at once with MisconfigurationError naming it and the fix, even for a key it owns; the error event names it once', timed(15000, async ({ clusters }) => {
  const c = clusters.clusters[0]!;
  const node = c.urls[0]!;
  const name = node.replace('redis://', '');
  const redlock = new Redlock([node], { retryCount: 10, retryDelay: 1000 });
  const events: Error[] = [];
  redlock.on('error', (error: Error) => events.push(error));
  try {
    const ready = await rejection(redlock.ready(), MisconfigurationError);
    assert.is(ready.reason, 'moved');
    assert.is(ready.master, name);
    assert.match(ready.fix, `{ cluster: ['redis://${name}'] }`);
    // A key of the node's own shard would be granted there; a key of another shard answered MOVED.
    for (const [shard, key] of [[0, keysOnShard(c, 0, 1, 'own')[0]!], [1, keysOnShard(c, 1, 1, 'other')[0]!]] as const) {
      const started = performance.now();
      const error = await rejection(redlock.acquire([key], 1000));
      assert.instance(error, MisconfigurationError, key);
      assert.match((error as Error).message, 'is a Redis Cluster node, not a standalone master');
      assert.ok(performance.now() - started < 500, `${key}: failed after ${(performance.now() - started).toFixed(0)} ms, not at once`);
      assert.is(await c.command(shard, ['EXISTS', key]), 0, 'nothing was written');
    }
    const named = events.filter((event) => event instanceof MisconfigurationError);
    assert.is(named.length, 1, named.map((event) => event.message).join('\n'));
  } finally {
    await redlock.quit();
  }
}));

test('three nodes of one cluster given as three ioredis masters: the first acquire fails with MisconfigurationError, not QuorumUnreachable', timed(15000, async ({ clusters }) => {
  const c = clusters.clusters[0]!;
  const clients = c.urls.map((url) => new Redis(url));
  for (const client of clients) client.on('error', () => undefined);
  const redlock = new Redlock(clients, { retryCount: 10, retryDelay: 1000 });
  try {
    const error = await rejection(redlock.acquire([keysOnShard(c, 2, 1, 'io')[0]!], 1000), MisconfigurationError);
    assert.is(error.reason, 'moved');
  } finally {
    await redlock.quit();
  }
}));

test('pipelock loadtest --servers <cluster node> refuses it before the run: one message with the fix, exit 1', timed(30000, async ({ clusters }) => {
  const node = clusters.clusters[0]!.urls[0]!;
  const run = await cli(['loadtest', '--servers', node, '--duration', '1']);
  assert.is(run.code, 1, run.stderr);
  assert.match(run.stderr, `pipelock loadtest: ${node} is a Redis Cluster node, not a standalone master: give the cluster as one member with redis+cluster://${node.replace('redis://', '')} in --servers`);
}));

test.run();
