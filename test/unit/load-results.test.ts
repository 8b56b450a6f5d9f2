import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decode, encode, kHighestUs, percentileCurve, Recorder, summarize } from '../../tools/src/load/histogram.js';
import { describeHost, hostLine } from '../../tools/src/load/host.js';
import { serverVersion } from '../../tools/src/load/servers.js';
import { errorCode } from '../../tools/src/load/meter.js';
import { buildResult, mergeResults, OP_NAMES, type OpName, type RunResult, type WorkerReport } from '../../tools/src/load/result.js';
import { LockLostError, ResourceLockedError } from '../../src/index.js';

const test = suite('load results');

function recorded(values: readonly number[]): Recorder {
  const recorder = new Recorder();
  for (const ms of values) recorder.recordMs(ms);
  return recorder;
}

function report(worker: number, cycles: number[], errors: Record<string, number>): WorkerReport {
  const histograms = Object.fromEntries(OP_NAMES.map((op) => [op, encode(recorded(op === 'extend' ? [] : cycles).histogram)])) as Record<OpName, string>;
  return { worker, cycles: cycles.length, errors, contendedAcquires: 1, lostAttempts: 2, clamped: 0, histograms, cpuUserMs: 1, cpuSystemMs: 1, elu: 0.5, measuredMs: 1000 };
}

function run(reports: WorkerReport[]): RunResult {
  return buildResult(reports, {
    host: hostLine(['7.0.15'], { operation: 'acquire-release' }, new Date(0)),
    interrupted: false,
    measuredSeconds: 1,
    timeline: [{ second: 1, cycles: 3, errors: 0, warmup: false }],
    cpu: { userMs: 10, systemMs: 5, seconds: 1, percentOfOneCore: 1.5 },
  });
}

test('Recorder records whole µs (at least 1) and clamps above a minute, counting each', () => {
  const r = recorded([0.0001, 1.2345, 61_000, 120_000]);
  assert.is(r.histogram.totalCount, 4);
  assert.is(r.clamped, 2);
  assert.is(r.histogram.minNonZeroValue, 1);
  assert.ok(r.histogram.maxValue >= kHighestUs * 0.999 && r.histogram.maxValue <= kHighestUs * 1.001);
});

test('encode/decode round-trips counts and percentiles', () => {
  const r = recorded([1, 2, 3, 4, 5, 100]);
  const back = decode(encode(r.histogram));
  assert.equal(summarize(back), summarize(r.histogram));
});

test('a run sums its workers: cycles, errors by code, contention; every histogram counts the completed cycles', () => {
  const result = run([report(0, [1, 2, 3], { ERR_A: 1 }), report(1, [4, 5], { ERR_A: 2, ERR_B: 1 })]);
  assert.is(result.cycles, 5);
  assert.equal(result.errors, { ERR_A: 3, ERR_B: 1 });
  assert.is(result.contendedAcquires, 2);
  assert.is(result.lostAttempts, 4);
  assert.is(result.operations.acquire.count, 5);
  assert.is(result.operations.cycle.count, 5);
  assert.is(result.operations.extend.count, 0);
  assert.is(result.workers.reduce((n, w) => n + w.cycles, 0), result.cycles);
  assert.equal(result.workers.map((w) => w.errors), [1, 3]);
  assert.is(result.throughput, 5);
});

test('merging runs is exact: histograms add bucket by bucket, counts and throughput sum, runs renumbered', () => {
  const a = run([report(0, [1, 2, 3], { ERR_A: 1 })]);
  const b = run([report(0, [10, 20], {}), report(1, [30], { ERR_B: 2 })]);
  const merged = mergeResults([a, b]);
  const together = recorded([1, 2, 3, 10, 20, 30]).histogram;
  assert.is(merged.runs, 2);
  assert.is(merged.cycles, a.cycles + b.cycles);
  assert.is(merged.throughput, a.throughput + b.throughput);
  assert.equal(merged.errors, { ERR_A: 1, ERR_B: 2 });
  assert.equal({ ...merged.operations.acquire, histogram: '' }, { ...summarize(together), histogram: '' });
  assert.equal(merged.workers.map((w) => [w.run, w.worker]), [[0, 0], [1, 0], [1, 1]]);
  assert.equal(merged.timeline, [{ second: 1, cycles: 6, errors: 0, warmup: false, partial: false }]);
  assert.is(merged.hosts.length, 2);
  // …and merging merged results again stays exact.
  const again = mergeResults([merged, a]);
  assert.is(again.runs, 3);
  assert.is(again.operations.cycle.count, 9);
});

test('percentile curve: x grows (1/(1−p)) and latency never falls', () => {
  const { x, y } = percentileCurve(recorded(Array.from({ length: 1000 }, (_, i) => i / 10)).histogram);
  assert.ok(x.length > 10);
  for (let i = 1; i < x.length; i++) {
    assert.ok(x[i]! > x[i - 1]!);
    assert.ok(y[i]! >= y[i - 1]!);
  }
});

test('errorCode: pipelock codes, else the name', () => {
  assert.is(errorCode(new ResourceLockedError('x')), 'ERR_PIPELOCK_RESOURCE_LOCKED');
  assert.is(errorCode(new LockLostError('x')), 'ERR_PIPELOCK_LOCK_LOST');
  assert.is(errorCode(new TypeError('x')), 'TypeError');
  assert.is(errorCode('text'), 'non-error thrown');
});

test('the host line names Valkey by its own version, not the Redis version it reports beside it', () => {
  assert.is(serverVersion('# Server\r\nredis_version:7.2.4\r\nserver_name:valkey\r\nvalkey_version:9.0.0\r\n'), 'valkey 9.0.0');
  assert.is(serverVersion('# Server\r\nredis_version:7.0.15\r\n'), '7.0.15');
  assert.match(describeHost(hostLine(['valkey 9.0.0'], {}, new Date(0))), ', valkey 9.0.0, ');
  assert.match(describeHost(hostLine(['7.0.15'], {}, new Date(0))), ', redis 7.0.15, ');
  assert.match(describeHost(hostLine([], {}, new Date(0))), ', redis ?, ');
});

test.run();
