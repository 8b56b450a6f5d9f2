import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { summarize } from '../../bench/lib/summary.js';
import { judgeTargets, type Target } from '../../bench/lib/targets.js';
import { plannedRuns, type RunRecord } from '../../bench/peers/harness.js';
import { configById, repsOf } from '../../bench/peers/contender.js';
import { parseCommandStats } from '../../bench/peers/redis-cpu.js';

const test = suite('bench: peers\' targets and repetitions');

interface Figures {
  readonly cyclesPerSec: number;
  readonly acquireP50?: number;
  readonly releaseP50?: number;
  readonly cpu?: number;
  readonly commands?: number;
}

function run(config: string, contender: string, rep: number, f: Figures): RunRecord {
  return {
    contender, config, rep, order: 0, concurrency: 1, keys: 1_000_000, warmupMs: 1000, durationMs: 5000,
    seconds: 5, cycles: f.cyclesPerSec * 5, refused: 0, errors: 0, firstError: undefined, cyclesPerSec: f.cyclesPerSec, refusedPerSec: 0,
    acquire: { p50: f.acquireP50 ?? 100, p99: 300, p999: 500 }, release: { p50: f.releaseP50 ?? 100, p99: 300, p999: 500 },
    clientCpuUsPerCycle: f.cpu ?? 100, clientSystemCpuUsPerCycle: 20, redisCpuUsPerCycle: 50, redisCommandsPerCycle: f.commands ?? 10, redisScriptCallsPerCycle: 5,
  };
}

function target(targets: readonly Target[], id: string): Target {
  const found = targets.find((t) => t.id === id);
  if (found === undefined) throw new Error(`no target ${id}`);
  return found;
}

/** Three repetitions of c1: pipelock, the quorum ceiling and every peer. */
function c1(pipelock: Figures, ceiling: Figures, peer: number): RunRecord[] {
  const runs: RunRecord[] = [];
  for (let rep = 0; rep < 3; rep++) {
    runs.push(run('c1', 'pipelock', rep, pipelock), run('c1', 'raw-quorum', rep, ceiling));
    for (const id of ['node-redlock', 'sesamecare-redlock', 'redis-semaphore']) runs.push(run('c1', id, rep, { cyclesPerSec: peer }));
  }
  return runs;
}

test('concurrency 1: 0.97× the ceiling and 1.05× every peer, by paired ratios', () => {
  const met = judgeTargets(summarize(c1({ cyclesPerSec: 5000 }, { cyclesPerSec: 5100 }, 4700)));
  assert.is(target(met, 'c1-ceiling').met, true);
  assert.is(target(met, 'c1-peers').met, true);
  const missed = judgeTargets(summarize(c1({ cyclesPerSec: 4900 }, { cyclesPerSec: 5100 }, 4700)));
  assert.is(target(missed, 'c1-ceiling').met, false, '0.96× is under 0.97×');
  assert.is(target(missed, 'c1-peers').met, false, '1.04× is under 1.05×');
  assert.match(target(missed, 'c1-ceiling').figure, '0.96×');
});

test('concurrency 1: a peer the run did not measure is named, not judged; none measured is not judged', () => {
  const runs = c1({ cyclesPerSec: 5000 }, { cyclesPerSec: 5100 }, 4700);
  const partial = target(judgeTargets(summarize(runs)), 'c1-peers');
  assert.is(partial.met, true, 'judged over the three peers measured');
  assert.match(partial.figure, 'not measured: redlock 4.2.0, redlock-universal RedLock');
  const slow = runs.map((r) => (r.contender === 'redis-semaphore' ? { ...r, cyclesPerSec: 4900 } : r));
  assert.is(target(judgeTargets(summarize(slow)), 'c1-peers').met, false, '1.02× redis-semaphore');
  const alone = runs.filter((r) => r.contender === 'pipelock' || r.contender === 'raw-quorum');
  assert.is(target(judgeTargets(summarize(alone)), 'c1-peers').met, undefined);
});

test('concurrency 1: each p50 within 10 µs of the ceiling\'s, client CPU no more than its', () => {
  const near = judgeTargets(summarize(c1({ cyclesPerSec: 5000, acquireP50: 110, releaseP50: 100, cpu: 99 }, { cyclesPerSec: 5000, acquireP50: 100, releaseP50: 95, cpu: 100 }, 4000)));
  assert.is(target(near, 'c1-acquire-p50').met, true);
  assert.is(target(near, 'c1-release-p50').met, true);
  assert.is(target(near, 'c1-cpu').met, true);
  const far = judgeTargets(summarize(c1({ cyclesPerSec: 5000, acquireP50: 111, releaseP50: 100, cpu: 101 }, { cyclesPerSec: 5000, acquireP50: 100, releaseP50: 95, cpu: 100 }, 4000)));
  assert.is(target(far, 'c1-acquire-p50').met, false);
  assert.match(target(far, 'c1-acquire-p50').figure, '+11 µs');
  assert.is(target(far, 'c1-cpu').met, false);
});

test('the hot key: successes and the cost of an attempt against the ceiling; unmeasured targets are not judged', () => {
  const runs = [0, 1, 2].flatMap((rep) => [run('hot64', 'pipelock', rep, { cyclesPerSec: 900, commands: 12, cpu: 20 }), run('hot64', 'raw-quorum', rep, { cyclesPerSec: 850, commands: 11, cpu: 21 })]);
  const targets = judgeTargets(summarize(runs));
  assert.is(target(targets, 'hot-ceiling').met, true);
  assert.is(target(targets, 'hot-refusals').met, false, 'one command more per attempt than the ceiling');
  assert.is(target(targets, 'c4-ceiling').met, undefined);
  assert.is(target(targets, 'c1-ceiling').met, undefined);
});

test('Valkey: the masters\' CPU against the script path and the ceiling, cycles/s against both', () => {
  const cpu = (id: string, us: number, cyclesPerSec: number, config = 'valkey64'): RunRecord => ({ ...run(config, id, 0, { cyclesPerSec }), redisCpuUsPerCycle: us });
  const runs = [cpu('pipelock', 12, 60_000), cpu('pipelock-scripts', 21, 50_000), cpu('raw-quorum', 30, 25_000)];
  for (const config of ['valkey1', 'valkey512']) runs.push(cpu('pipelock', 1, 5000, config), cpu('pipelock-scripts', 1, 4900, config));
  const targets = judgeTargets(summarize(runs));
  assert.is(target(targets, 'valkey64-server-cpu').met, true, '12 ≤ 0.6 × 21 and ≤ 0.6 × 30');
  assert.is(target(targets, 'valkey64-ceiling').met, true);
  assert.is(target(targets, 'valkey-vs-scripts').met, true);
  const worse = judgeTargets(summarize([cpu('pipelock', 13, 40_000), cpu('pipelock-scripts', 21, 50_000), cpu('raw-quorum', 30, 25_000)]));
  assert.is(target(worse, 'valkey64-server-cpu').met, false, '13 > 0.6 × 21');
  assert.is(target(worse, 'valkey64-ceiling').met, false);
  assert.is(target(worse, 'valkey-vs-scripts').met, undefined, 'concurrency 1 and 512 not measured');
});

test('low concurrencies run at least 5 repetitions whatever --reps says; the plan counts them', () => {
  assert.is(repsOf(configById('c1'), 3), 5);
  assert.is(repsOf(configById('c16'), 7), 7);
  assert.is(repsOf(configById('c64'), 3), 3);
  // c1 and c4: 5 reps × 2 contenders; c64: 3 × 2; cluster64: 3 × the 1 of the two that runs there.
  assert.is(plannedRuns({ configs: ['c1', 'c4', 'c64', 'cluster64'], contenders: ['pipelock', 'raw-coalesced'], reps: 3 }), 10 + 10 + 6 + 3);
});

test('commands from INFO commandstats: a script\'s own calls counted, INFO left out', () => {
  const info = '# Commandstats\r\ncmdstat_set:calls=7,usec=9\r\ncmdstat_info:calls=2,usec=41\r\ncmdstat_evalsha:calls=3,usec=67\r\ncmdstat_eval:calls=1,usec=5\r\ncmdstat_client|setinfo:calls=2,usec=1\r\n';
  assert.equal(parseCommandStats(info), { commands: 13, scriptCalls: 4 });
});

test.run();
