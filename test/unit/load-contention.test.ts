import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { formatResult } from '../../tools/src/cli/table.js';
import { compare } from '../../tools/src/load/compare.js';
import { fairnessOf, jainIndex, mergeFairness } from '../../tools/src/load/contention.js';
import { decode, encode, Recorder } from '../../tools/src/load/histogram.js';
import { hostLine } from '../../tools/src/load/host.js';
import { Meter } from '../../tools/src/load/meter.js';
import { checkResult, ResultFileError } from '../../tools/src/load/result-file.js';
import { buildResult, mergeResults, OP_NAMES, type OpName, type RunResult, type WorkerReport } from '../../tools/src/load/result.js';
import { kFlags, syntheticRun } from '../helpers/results.js';

const test = suite('load contention');

const close = (a: number, b: number): boolean => Math.abs(a - b) < 1e-12;

test("Jain's index: 1 when all contenders won equally, 1/n when one won everything, null when none won", () => {
  assert.is(fairnessOf([7, 7, 7, 7]).jain, 1);
  assert.ok(close(fairnessOf([12, 0, 0, 0]).jain!, 1 / 4));
  // (1 + 2 + 3)² / (3 · (1 + 4 + 9)) = 36 / 42
  assert.ok(close(fairnessOf([1, 2, 3]).jain!, 36 / 42));
  assert.is(fairnessOf([0, 0, 0]).jain, null);
  assert.is(jainIndex(0, 0, 0), null);
  const f = fairnessOf([5, 1, 9]);
  assert.equal([f.contenders, f.acquisitions, f.sumOfSquares, f.min, f.max], [3, 15, 107, 1, 9]);
  for (const counts of [[1], [3, 9], [100, 1, 50, 7, 0]]) {
    const jain = fairnessOf(counts).jain!;
    assert.ok(jain > 0 && jain <= 1, `${counts.join()}: ${jain}`);
  }
});

test('merged fairness is the index over the union of contenders, not an average of the indexes', () => {
  const a = [10, 10, 10, 10];
  const b = [1, 2, 30];
  const merged = mergeFairness([fairnessOf(a), fairnessOf(b)]);
  assert.equal(merged, fairnessOf([...a, ...b]));
  // Each set alone is one thing, together another: averaging the two indexes would be wrong.
  assert.not.ok(close(merged.jain!, (fairnessOf(a).jain! + fairnessOf(b).jain!) / 2));
  assert.equal(mergeFairness([fairnessOf(a), fairnessOf([])]), fairnessOf(a));
  assert.equal(mergeFairness([merged, fairnessOf([4])]), fairnessOf([...a, ...b, 4]));
});

test('the meter splits acquire latency by attempts, buckets attempts and counts each contender, inside the window only', () => {
  const meter = new Meter({ contenders: 3, attempts: true });
  const cycle = (acquireMs: number, attempts: number, contender: number, counted = true): void => {
    meter.done({ acquireMs, extendMs: -1, releaseMs: 0.1, attempts }, acquireMs + 0.1, counted, contender);
  };
  cycle(0.5, 1, 0);
  cycle(0.6, 1, 0);
  cycle(40, 2, 1);
  cycle(90, 4, 1);
  cycle(150, 7, 2);
  cycle(300, 14, 2);
  cycle(0.2, 0, 1); // passed the lock by a holder of its process: no attempt of its own
  cycle(500, 3, 0, false); // outside the window: nowhere
  const report = meter.report(0, { cpuUserMs: 0, cpuSystemMs: 0, elu: 0, measuredMs: 1000 });
  assert.equal(report.won, [2, 3, 2]);
  assert.equal(report.waits!.attempts, { buckets: [1, 2, 1, 1, 1, 1], total: 1 + 1 + 2 + 4 + 7 + 14, max: 14 });
  const first = decode(report.waits!.firstAttempt);
  const retried = decode(report.waits!.retried);
  assert.is(first.totalCount, 3);
  assert.is(retried.totalCount, 4);
  assert.ok(first.maxValue < 1000 && retried.minNonZeroValue >= 39_000, 'first attempts are the fast ones here');
  assert.is(report.contendedAcquires, 4);
  assert.is(report.lostAttempts, 1 + 3 + 6 + 13);
  // An open loop has no contenders; under using() attempts are unknown.
  const open = new Meter({ contenders: 0, attempts: false });
  open.done({ acquireMs: 1, extendMs: -1, releaseMs: 0.1, attempts: 1 }, 1.1, true, -1);
  const plain = open.report(1, { cpuUserMs: 0, cpuSystemMs: 0, elu: 0, measuredMs: 1000 });
  assert.is(plain.won, undefined);
  assert.is(plain.waits, undefined);
});

function recorded(values: readonly number[]): string {
  const recorder = new Recorder();
  for (const ms of values) recorder.recordMs(ms);
  return encode(recorder.histogram);
}

/** A worker that won `won[i]` acquisitions per slot, each latency in `first` with one attempt, in `retried` with `attempts` each. */
function worker(index: number, won: number[], first: number[], retried: number[], attempts = 3): WorkerReport {
  const all = [...first, ...retried];
  const histograms = Object.fromEntries(OP_NAMES.map((op) => [op, recorded(op === 'extend' ? [] : all)])) as Record<OpName, string>;
  return {
    worker: index, cycles: all.length, errors: {}, contendedAcquires: retried.length, lostAttempts: retried.length * (attempts - 1), clamped: 0, histograms,
    waits: { firstAttempt: recorded(first), retried: recorded(retried), attempts: { buckets: [0, first.length, 0, retried.length, 0, 0], total: first.length + attempts * retried.length, max: retried.length > 0 ? attempts : 1 } },
    won, cpuUserMs: 1, cpuSystemMs: 1, elu: 0.5, measuredMs: 1000,
  };
}

function run(reports: WorkerReport[], flags: Record<string, number>, from = Date.UTC(2026, 0, 1)): RunResult {
  return buildResult(reports, {
    host: hostLine(['7.0.15'], { ...kFlags, ...flags }, new Date(from)),
    interrupted: false,
    measuredSeconds: 1,
    timeline: [{ second: 1, cycles: reports.reduce((n, r) => n + r.cycles, 0), errors: 0, warmup: false }],
    cpu: { userMs: 10, systemMs: 5, seconds: 1, percentOfOneCore: 1.5 },
    window: { from, to: from + 1000 },
  });
}

const kOneKey = { keys: 1, workers: 2, concurrency: 2 };

test('a run: waits merged over workers, fairness over every contender of every worker, FIFO bound = contenders ÷ throughput', () => {
  const result = run([worker(0, [2, 1], [1], [50, 60]), worker(1, [1, 0], [], [70])], kOneKey);
  assert.is(result.waits!.firstAttempt.count, 1);
  assert.is(result.waits!.retried.count, 3);
  assert.is(result.waits!.firstAttempt.count + result.waits!.retried.count, result.operations.acquire.count);
  assert.equal(result.waits!.attempts, { buckets: [0, 1, 0, 3, 0, 0], total: 10, max: 3, mean: 2.5 });
  assert.equal(result.fairness, fairnessOf([2, 1, 1, 0]));
  // 4 contenders, 4 handoffs in 1 s: a perfect queue makes each wait 1 s.
  assert.is(result.fifo!.waitUs, 1e6);
  assert.ok(close(result.fifo!.acquireP99Ratio, result.operations.acquire.p99 / 1e6));
  assert.equal(result.workers.map((w) => Object.keys(w).filter((k) => k === 'won' || k === 'waits')), [[], []], 'per-contender arrays stay out of the file');
  checkResult('run.json', JSON.parse(JSON.stringify(result)));
  // The FIFO bound needs fewer keys than contenders, and a closed loop's fixed contenders.
  assert.is(run([worker(0, [2, 1], [1], [50, 60])], { ...kOneKey, keys: 4 }).fifo, undefined);
  assert.is(run([worker(0, [2, 1], [1], [50, 60])], { ...kOneKey, rate: 100 }).fifo, undefined);
});

test('merging runs adds waits and contender sums exactly; the merged index is over all contenders', () => {
  const a = run([worker(0, [5, 5], [1, 2], [30, 40, 50]), worker(1, [5, 5], [3], [60])], kOneKey);
  const b = run([worker(0, [1, 9], [1], [80, 90, 100, 110]), worker(1, [0, 10], [], [120])], kOneKey, Date.UTC(2026, 0, 1) + 10);
  const merged = mergeResults([a, b]);
  assert.equal(merged.fairness, fairnessOf([5, 5, 5, 5, 1, 9, 0, 10]));
  assert.is(merged.waits!.retried.count, a.waits!.retried.count + b.waits!.retried.count);
  assert.is(merged.waits!.firstAttempt.count, 4);
  const sum = decode(a.waits!.retried.histogram);
  sum.add(decode(b.waits!.retried.histogram));
  assert.is(merged.waits!.retried.p99, sum.getValueAtPercentile(99));
  assert.equal(merged.waits!.attempts.buckets, [0, 4, 0, 9, 0, 0]);
  assert.is(merged.waits!.attempts.mean, (4 + 3 * 9) / 13);
  // Σ contenders ÷ Σ throughput.
  assert.is(merged.fifo!.waitUs, (1e6 * 8) / (a.throughput + b.throughput));
  assert.equal(mergeResults([merged, a]).fairness, fairnessOf([5, 5, 5, 5, 1, 9, 0, 10, 5, 5, 5, 5]));
});

test('older files without the new fields still load, merge (without them, noted) and compare; a bad new field is refused', () => {
  const current = syntheticRun();
  // As a file written before the fields were recorded.
  const older = { ...run([worker(0, [1, 1], [1], [2])], kOneKey), waits: undefined, fairness: undefined, fifo: undefined };
  checkResult('older.json', JSON.parse(JSON.stringify(older)));
  const withFields = run([worker(0, [1, 1], [1], [2])], kOneKey, Date.UTC(2026, 0, 1) + 5);
  const merged = mergeResults([older, withFields]);
  assert.is(merged.waits, undefined);
  assert.is(merged.fairness, undefined);
  assert.is(merged.fifo, undefined);
  assert.match(merged.notes?.join('\n') ?? '', /^attempts per acquisition and fairness left out of the merge: not every run recorded them/);
  assert.not.match(formatResult(merged), /Jain/);
  assert.is(compare({ files: ['a.json'], results: [current] }, { files: ['b.json'], results: [{ ...current, waits: withFields.waits! }] }).verdict, 'ok');

  // Written before the bucket of locks passed on (no attempt): one bucket fewer, read with a 0 in front.
  const fiveBuckets = JSON.parse(JSON.stringify(withFields)) as { waits: { attempts: { buckets: number[] } } };
  fiveBuckets.waits.attempts.buckets = fiveBuckets.waits.attempts.buckets.slice(1);
  checkResult('five.json', fiveBuckets);
  assert.equal(fiveBuckets.waits.attempts.buckets, withFields.waits!.attempts.buckets);
  const bad = JSON.parse(JSON.stringify(withFields)) as { waits: { attempts: { buckets: number[] } }; fairness: { jain: number } };
  bad.waits.attempts.buckets = [0, 9, 0, 0, 0, 0];
  assert.throws(() => {
    checkResult('bad.json', bad);
  }, (error: unknown) => error instanceof ResultFileError && /waits\.attempts\.buckets/.test(error.message));
  const unfair = JSON.parse(JSON.stringify(withFields)) as { fairness: { jain: number } };
  unfair.fairness.jain = 1.5;
  assert.throws(() => {
    checkResult('unfair.json', unfair);
  }, (error: unknown) => error instanceof ResultFileError && /no valid fairness/.test(error.message));
});

test('text: a contended run gets the retried/1st-attempt rows and the block; many keys and few collisions keep one line', () => {
  const contended = formatResult(run([worker(0, [2, 1], [1], [50, 60]), worker(1, [1, 0], [], [70])], kOneKey));
  assert.match(contended, /^ {2}retried\s+3\s+\d+/m);
  assert.match(contended, /^ {2}1st attempt\s+1\s+\d+/m);
  assert.match(contended, /^ {2}attempts {4}mean 2\.50, max 3 per acquisition won; 0: 0%, 1: 25%, 2: 0%, 3–5: 75%, 6–10: 0%, >10: 0%$/m);
  assert.match(contended, /^ {2}fairness {4}Jain 0\.667 over 4 contenders \(2 workers × 2 in flight\), 0–2 acquisitions each$/m);
  assert.match(contended, /^ {2}FIFO bound {2}1000\.0 ms \(4 contenders ÷ 4\.0 handoffs\/s\); acquire p99 is 0\.07× it$/m);
  // 1 of 200 acquisitions retried over 10,000 keys: the one line of a run that did not contend.
  const quiet = formatResult(run([worker(0, [100, 100], Array.from({ length: 199 }, () => 1), [40])], { keys: 10_000, workers: 1, concurrency: 2 }));
  assert.match(quiet, /^contention {4}1 acquires lost 2 attempts to another holder$/m);
  assert.not.match(quiet, /retried|1st attempt|Jain|FIFO/);
});

test.run();
