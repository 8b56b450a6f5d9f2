import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { summarize } from '../../bench/lib/summary.js';
import { configById, contendersOf } from '../../bench/peers/contender.js';
import type { RunRecord } from '../../bench/peers/harness.js';

const test = suite('bench: peers\' cluster configuration');

const percentiles = { p50: 1000, p99: 2000, p999: 3000 };
function run(contender: string, rep: number, cluster: { scriptCalls: number; ticks: number; operations: number }): RunRecord {
  return {
    contender, config: 'cluster64', rep, order: 0, concurrency: 64, keys: 1_000_000, warmupMs: 1000, durationMs: 5000,
    seconds: 5, cycles: 10_000, refused: 0, errors: 0, firstError: undefined, cyclesPerSec: 2000, refusedPerSec: 0,
    acquire: percentiles, release: percentiles, clientCpuUsPerCycle: 100, redisCpuUsPerCycle: 50,
    cluster: { members: 3, shards: 9, ...cluster },
  };
}

test('only the contenders that run on cluster members are measured there; every contender elsewhere but the Valkey-only ones', () => {
  const all = ['pipelock', 'pipelock-ioredis', 'pipelock-uncoalesced', 'raw-coalesced', 'raw-quorum', 'raw-all', 'node-redlock', 'sesamecare-redlock', 'redis-semaphore'];
  assert.equal(contendersOf(configById('cluster64'), all), ['pipelock', 'pipelock-ioredis', 'raw-quorum', 'node-redlock']);
  assert.equal(contendersOf(configById('c64'), all), all);
  const forced = ['pipelock', 'pipelock-scripts', 'pipelock-native', 'raw-quorum'];
  assert.equal(contendersOf(configById('c64'), forced), ['pipelock', 'raw-quorum'], 'a forced path only where it differs: on Valkey');
  assert.equal(contendersOf(configById('valkey64'), [...forced, 'node-redlock']), forced);
});

test('script calls per cycle over every shard; per shard per tick from a member\'s calls, shards and ticks', () => {
  // 3 members × 3 shards; 600 ticks in all (200 per member) carrying 12,000 operations; 60,000 calls (20,000 per member).
  const summary = summarize([run('pipelock', 0, { scriptCalls: 60_000, ticks: 600, operations: 12_000 }), run('node-redlock', 0, { scriptCalls: 60_000, ticks: 0, operations: 0 })]);
  const pipelock = summary.cluster64!.pipelock!;
  assert.is(pipelock.scriptCallsPerCycle.median, 6);
  // Per member: 20,000 calls ÷ 3 shards ÷ 200 ticks.
  assert.ok(Math.abs(pipelock.scriptCallsPerShardPerTick.median - 20_000 / 3 / 200) < 1e-9);
  assert.is(pipelock.opsPerTick.median, 20);
  // No ticks (not pipelock): no per-tick figure.
  assert.is(summary.cluster64!['node-redlock']!.scriptCallsPerShardPerTick.n, 0);
});

test.run();
