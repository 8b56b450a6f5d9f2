/**
 * Cluster members benchmark: pipelock acquire+release cycles on Redis Cluster members against the
 * same number of standalone masters, in one run on one machine (ratios, not lone figures).
 *
 * Configurations: 3 standalone masters (N = 3); one cluster of 3 shards (N = 1); three clusters of 3
 * shards (N = 3). Closed loop, `concurrency` cycles in flight on random keys of a keyspace.
 * Besides cycles/s, each configuration reports per member how many script calls each shard ran
 * per coalesced tick (INFO commandstats: EVALSHA + EVAL; a lone SET NX is not counted, since
 * commandstats cannot tell it from the SETs scripts run), over the ticks counted on the
 * `pipelock:node-call` diagnostics channel, one message per batch a member's coalescer cut).
 *
 * Peers on cluster members (node-redlock v5, the quorum ceiling) are measured by bench:peers'
 * `cluster64` configuration (bench/peers/cluster.ts).
 *
 *   npm run bench:cluster            (BENCH_SECONDS=5 BENCH_CONCURRENCY=64 by default)
 * Writes bench/results/cluster.json.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { NODE_CALL_CHANNEL, type NodeCallMessage } from '../../src/engine/channels.js';
import { Redlock } from '../../src/index.js';
import { serverCommand, startClusters } from '../../src/testing/clusters.js';
import { startMasters } from '../../src/testing/masters.js';
import { hostInfo, ROOT } from '../lib/host.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 64);
const keyspace = 10_000;
const warmupMs = 1000;

interface Config {
  readonly name: string;
  /** Per member, the URLs of its servers (one for a standalone master, one per shard for a cluster). */
  readonly members: readonly (readonly string[])[];
  readonly entries: readonly (string | { cluster: readonly string[] })[];
}

interface Outcome {
  readonly name: string;
  readonly members: number;
  readonly serversPerMember: number;
  readonly cyclesPerSecond: number;
  /** Per member: script calls (EVALSHA, EVAL) per shard per tick, averaged over its shards. */
  readonly callsPerShardPerTick: readonly number[];
  /** Per member: operations per tick (what the coalescer gathered). */
  readonly opsPerTick: readonly number[];
}

async function scriptCalls(url: string): Promise<number> {
  const info = await serverCommand(url, ['INFO', 'commandstats']) as string;
  let calls = 0;
  // Not SET: commandstats also counts the commands a script runs (its SETs, DELs), not only the call.
  for (const match of info.matchAll(/cmdstat_(?:evalsha|eval):calls=(\d+)/g)) calls += Number(match[1]);
  return calls;
}

async function measure(config: Config): Promise<Outcome> {
  const redlock = new Redlock(config.entries, { retryCount: 0, nodeTimeout: 2000 });
  await redlock.ready();
  let counting = false;
  const ticks = config.members.map(() => 0);
  const ops = config.members.map(() => 0);
  const onCall = (message: unknown): void => {
    if (!counting) return;
    const call = message as NodeCallMessage;
    ticks[call.node]!++;
    ops[call.node]! += call.operations;
  };
  subscribe(NODE_CALL_CHANNEL, onCall);
  let cycles = 0;
  let running = true;
  const loop = async (): Promise<void> => {
    while (running) {
      const key = `bench:${Math.floor(Math.random() * keyspace)}`;
      try {
        const lock = await redlock.acquire([key], 5000);
        await lock.release();
        if (counting) cycles++;
      } catch { /* a collision on a random key: not a cycle */ }
    }
  };
  const loops = Array.from({ length: concurrency }, loop);
  await sleep(warmupMs);
  const before = await Promise.all(config.members.map((urls) => Promise.all(urls.map(scriptCalls))));
  counting = true;
  const start = performance.now();
  await sleep(seconds * 1000);
  counting = false;
  const elapsed = (performance.now() - start) / 1000;
  const after = await Promise.all(config.members.map((urls) => Promise.all(urls.map(scriptCalls))));
  running = false;
  await Promise.all(loops);
  unsubscribe(NODE_CALL_CHANNEL, onCall);
  await redlock.quit();
  return {
    name: config.name,
    members: config.members.length,
    serversPerMember: config.members[0]!.length,
    cyclesPerSecond: Math.round(cycles / elapsed),
    callsPerShardPerTick: config.members.map((urls, m) => round(urls.reduce((sum, _, s) => sum + after[m]![s]! - before[m]![s]!, 0) / urls.length / Math.max(1, ticks[m]!))),
    opsPerTick: config.members.map((_, m) => round(ops[m]! / Math.max(1, ticks[m]!))),
  };
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

const results: Outcome[] = [];
const host = hostInfo(['@redis/client', 'cluster-key-slot'], 'npm run bench:cluster');
{
  const masters = await startMasters({ count: 3 });
  try {
    results.push(await measure({ name: '3 standalone masters', members: masters.urls.map((url) => [url]), entries: masters.urls }));
  } finally {
    await masters.close();
  }
}
for (const count of [1, 3]) {
  const clusters = await startClusters({ clusters: count, shards: 3 });
  try {
    const members = clusters.clusters.map((c) => c.urls);
    results.push(await measure({ name: `${count} cluster${count > 1 ? 's' : ''} × 3 shards`, members, entries: members.map((urls) => ({ cluster: urls })) }));
  } finally {
    await clusters.close();
  }
}
const base = results[0]!.cyclesPerSecond;
for (const r of results) {
  console.log(`${r.name.padEnd(24)} ${String(r.cyclesPerSecond).padStart(7)} cycles/s (${round(r.cyclesPerSecond / base)}× standalone)  ops/tick ${r.opsPerTick.join(' ')}  script calls per shard per tick ${r.callsPerShardPerTick.join(' ')}`);
}
writeFileSync(join(ROOT, 'bench', 'results', 'cluster.json'), `${JSON.stringify({ host, seconds, concurrency, keyspace, results }, null, 2)}\n`);
