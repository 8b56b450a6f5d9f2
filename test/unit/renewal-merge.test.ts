import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cpuRatio, medianRow, mergeRenewal, renderRenewal, type RenewalResult, type RenewalRow } from '../../bench/renewal/render.js';
import type { Host } from '../../bench/lib/host.js';

// bench:renewal run for the worker figures alone must not drop the node-redlock rows of the last full run.
const test = suite('bench:renewal merge');

const host = (date: string, command: string): Host => (({ date, cpu: 'cpu', cores: 2, memoryGiB: 1, os: 'linux', node: 'v20', redisServer: '7', pipelock: '0.1.0 (abc)', packages: {}, loadavg: [0], command }));
const row = (contender: string, locks: number, clientCpuMsPerDuration: number): RenewalRow => ({
  contender, locks, duration: 6000, windowMs: 18000, commandsPerDuration: 10, commandsPerLockPerDuration: 0.01, executedPerDuration: 10,
  redisCpuMsPerDuration: 1, clientCpuMsPerDuration, mainLoopBusyMsPerDuration: 1, heapBytesPerLock: 900, lost: 0, acquireSeconds: 1,
});

const full: RenewalResult = {
  host: host('2026-11-24', 'npm run bench:renewal'), duration: 6000, windowMs: 18000,
  rows: [row('pipelock', 10000, 120), row('pipelock-worker', 10000, 170), row('node-redlock', 10000, 1450)],
  blocked: [{ contender: 'pipelock', locks: 1000, duration: 2000, blockMs: 4000, lost: 1000 }, { contender: 'pipelock-worker', locks: 1000, duration: 2000, blockMs: 4000, lost: 0 }],
};

test('a run of the pipelock contenders replaces their rows and keeps node-redlock\'s, marked with the run it came from', () => {
  const run: RenewalResult = { host: host('2026-11-29', 'npm run bench:renewal -- --contenders pipelock,pipelock-worker --sizes 10000 --block 0'), duration: 6000, windowMs: 18000, rows: [row('pipelock', 10000, 121), row('pipelock-worker', 10000, 125)], blocked: [] };
  const merged = mergeRenewal(run, full);
  assert.equal(merged.rows.map((r) => [r.contender, r.clientCpuMsPerDuration, r.from !== undefined]), [['pipelock', 121, false], ['pipelock-worker', 125, false], ['node-redlock', 1450, true]]);
  assert.ok(merged.rows[2]!.from!.startsWith('2026-11-24'));
  assert.is(merged.blocked!.length, 2, 'the blocked rows of the earlier run kept (this run skipped them)');
  const text = renderRenewal(merged);
  assert.match(text, '| 10,000 | node-redlock † |');
  assert.match(text, '† kept from an earlier run');
  assert.match(text, 'client CPU 1.03×');
});

test('without an earlier result, or with --replace, the run stands alone', () => {
  const run: RenewalResult = { ...full, rows: [row('pipelock', 1000, 1)] };
  assert.is(mergeRenewal(run, undefined), run);
});

test('--reps: a row is the median run by client CPU, and worker ÷ in-thread the median of the paired ratios', () => {
  const main = medianRow([row('pipelock', 10000, 160), row('pipelock', 10000, 150), row('pipelock', 10000, 200)]);
  const worker = medianRow([row('pipelock-worker', 10000, 168), row('pipelock-worker', 10000, 183), row('pipelock-worker', 10000, 170)]);
  assert.is(main.clientCpuMsPerDuration, 160);
  assert.equal(main.clientCpuRuns, [160, 150, 200]);
  assert.is(worker.clientCpuMsPerDuration, 170);
  // Pairs 1.05, 1.22, 0.85: the median pair (168 ÷ 160), not the median rows' 170 ÷ 160.
  assert.is(cpuRatio(worker, main).ratio, 168 / 160);
  assert.is(medianRow([row('pipelock', 1, 5)]).clientCpuRuns, undefined, 'one run: no list');
  const text = renderRenewal({ ...full, rows: [main, worker] });
  assert.match(text, 'client CPU 1.05× (median of 3 paired runs: 1.05, 1.22, 0.85)');
});

test.run();
