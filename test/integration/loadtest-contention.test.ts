import '../helpers/setup.js';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decode } from '../../tools/src/load/histogram.js';
import type { RunResult } from '../../tools/src/load/result.js';
import { cli } from '../helpers/cli.js';
import { timed } from '../helpers/timeout.js';

// A hot lock on embedded masters, as a user would look at one: `--keys 1 --hold 1ms`, six contenders.
const test = suite('loadtest contention');

let dir = '';
test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pipelock-contention-'));
});
test.after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const kWorkers = 2;
const kConcurrency = 3;

async function readResult(file: string): Promise<RunResult> {
  return JSON.parse(await readFile(file, 'utf8')) as RunResult;
}

test('--keys 1 --hold 1ms: retried and 1st-attempt rows, attempts, fairness and the FIFO bound in text, JSON and HTML', timed(40_000, async () => {
  const json = join(dir, 'hot.json');
  const html = join(dir, 'hot.html');
  const run = await cli(['loadtest', '--masters', '3', '--workers', String(kWorkers), '--concurrency', String(kConcurrency), '--keys', '1', '--hold', '1ms',
    '--retry-delay', '20', '--retry-jitter', '10', '--duration', '1.5', '--warmup', '0.3', '--json', json, '--html', html]);
  assert.is(run.code, 0, run.stderr);
  const result = await readResult(json);
  assert.ok(result.cycles > 20, `cycles ${result.cycles}`);
  const { waits, fairness, fifo } = result;
  assert.ok(waits !== undefined && fairness !== undefined && fifo !== undefined, `new fields: ${JSON.stringify({ waits, fairness, fifo })}`);

  // Every acquisition won is in one of the two rows, and each row's histogram holds its count.
  assert.is(waits.firstAttempt.count + waits.retried.count, result.operations.acquire.count);
  assert.ok(waits.retried.count > 0 && waits.retried.count <= result.cycles, `retried ${waits.retried.count} of ${result.cycles}`);
  assert.is(decode(waits.retried.histogram).totalCount, waits.retried.count);
  assert.ok(waits.retried.p50 <= waits.retried.p99 && waits.retried.p99 <= waits.retried.max);
  assert.is(waits.attempts.buckets.reduce((a, b) => a + b, 0), result.cycles);
  assert.ok(waits.attempts.mean <= waits.attempts.max, `attempts ${JSON.stringify(waits.attempts)}`);
  // Six contenders on one key: some acquisitions lost an attempt, and (three per worker) some were passed the lock by a holder of their worker.
  assert.ok(waits.attempts.buckets.slice(2).some((n) => n > 0), `attempts ${JSON.stringify(waits.attempts)}`);
  assert.ok(waits.attempts.buckets[0]! > 0, `attempts ${JSON.stringify(waits.attempts)}`);

  // One contender per closed-loop slot; each won, and together they won every cycle.
  assert.is(fairness.contenders, kWorkers * kConcurrency);
  assert.is(fairness.acquisitions, result.cycles);
  assert.ok(fairness.jain !== null && fairness.jain > 0 && fairness.jain <= 1, `jain ${fairness.jain}`);
  assert.ok(fairness.min >= 1 && fairness.min <= fairness.max, `each contender won: ${fairness.min}–${fairness.max}`);
  assert.ok(Math.abs(fifo.waitUs - (1e6 * fairness.contenders) / result.throughput) < 1e-6, `fifo ${fifo.waitUs}`);
  assert.ok(Math.abs(fifo.acquireP99Ratio - result.operations.acquire.p99 / fifo.waitUs) < 1e-9);

  assert.match(run.stdout, new RegExp(`^ {2}retried +${waits.retried.count} +${waits.retried.p50} `, 'm'));
  assert.match(run.stdout, new RegExp(`^ {2}1st attempt +${waits.firstAttempt.count} `, 'm'));
  assert.match(run.stdout, /^ {2}attempts {4}mean \d+\.\d\d, max \d+ per acquisition won; 0: [\d.]+%, 1: [\d.]+%, 2: [\d.]+%, 3–5: [\d.]+%, 6–10: [\d.]+%, >10: [\d.]+%$/m);
  assert.match(run.stdout, new RegExp(`^ {2}fairness {4}Jain ${fairness.jain.toFixed(3)} over 6 contenders \\(2 workers × 3 in flight\\), ${fairness.min}–${fairness.max} acquisitions each$`, 'm'));
  assert.match(run.stdout, /^ {2}FIFO bound {2}[\d.]+ ms \(6 contenders ÷ [\d.]+ handoffs\/s\); acquire p99 is [\d.]+× it$/m);
  const page = await readFile(html, 'utf8');
  assert.ok(page.includes('<h2>Contention</h2>') && page.includes('<table id="contention">') && page.includes('acquire, retried'));
}));

test('report merge: the merged index is over both runs\' contenders; an older file merges without the new fields', timed(30_000, async () => {
  const hot = join(dir, 'hot.json');
  const copy = join(dir, 'hot-copy.json');
  await copyFile(hot, copy);
  const one = await readResult(hot);
  const out = join(dir, 'merged.json');
  const merged = await cli(['report', 'merge', hot, copy, '--json', out]);
  assert.is(merged.code, 0, merged.stderr);
  const both = await readResult(out);
  assert.is(both.fairness!.contenders, 2 * one.fairness!.contenders);
  assert.is(both.fairness!.sumOfSquares, 2 * one.fairness!.sumOfSquares);
  // Twice the same counts: as fair as one of them.
  assert.ok(Math.abs(both.fairness!.jain! - one.fairness!.jain!) < 1e-12);
  assert.is(both.waits!.retried.count, 2 * one.waits!.retried.count);
  assert.match(merged.stdout, /^ {2}fairness {4}Jain [\d.]+ over 12 contenders \(2 runs, each on its own keys\)/m);

  // As a file written before the fields were recorded (JSON leaves out what is undefined).
  const old = join(dir, 'older.json');
  await writeFile(old, JSON.stringify({ ...one, waits: undefined, fairness: undefined, fifo: undefined }));
  const mixed = await cli(['report', 'merge', hot, old]);
  assert.is(mixed.code, 0, mixed.stderr);
  assert.match(mixed.stdout, /^note +attempts per acquisition and fairness left out of the merge: not every run recorded them/m);
  assert.not.match(mixed.stdout, /Jain|FIFO bound/);
  const compared = await cli(['report', 'compare', old, hot, '--max-regression', 'throughput=off,p50=off,p90=off,p99=off,p99.9=off']);
  assert.is(compared.code, 0, compared.stderr);
}));

test.run();
