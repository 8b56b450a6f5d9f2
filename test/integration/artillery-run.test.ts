import '../helpers/setup.js';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { report } from '../../tools/src/cli/report.js';
import type { OpName, RunResult } from '../../tools/src/load/result.js';
import { artilleryRun } from '../helpers/artillery.js';
import { mastersSuite } from '../helpers/masters.js';
import { timed } from '../helpers/timeout.js';

// The real `artillery run` (scripts/ensure-artillery.sh installs it) with two local workers driving
// artillery-engine-pipelock against three masters: `pipelock report merge` of the workers' files must
// equal the sum of those files, and agree with the counters and histogram counts Artillery itself
// aggregated from the same workers. (artillery-engine.test.ts checks the merged percentiles against
// every sample, which Artillery's report, sketched and rounded, cannot show.)
const test = mastersSuite('artillery run', { count: 3 });
const kWorkers = 2;

/** Artillery's JSON report (`--output`): the run's metrics, aggregated over its workers. */
interface ArtilleryReport {
  aggregate: {
    counters: Record<string, number>;
    summaries: Record<string, { count: number; min: number; max: number }>;
  };
}

let dir = '';
test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pipelock-artillery-run-'));
});
test.after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test(`artillery run with ${kWorkers} workers: report merge of their files is their sum, and Artillery's own counters agree`, timed(120_000, async ({ masters }) => {
  const script = {
    config: {
      target: masters.urls.join(','),
      // Artillery divides the arrival rate between its workers: 40/s each.
      phases: [{ duration: 2, arrivalRate: 40 * kWorkers }],
      engines: { pipelock: { json: join(dir, 'out', 'pipelock-{worker}.json'), lockDuration: '1s', retryCount: 0 } },
      plugins: { ensure: {} },
      ensure: { thresholds: [{ 'pipelock.acquire.p99': 60_000 }] },
    },
    scenarios: [
      { name: 'orders', engine: 'pipelock', weight: 3, flow: [{ cycle: { keys: 1000, hold: '1ms' } }] },
      // One key held 20 ms by ~20 users a second across both workers (one prefix per run): with no retry, some acquisitions fail.
      { name: 'hot', engine: 'pipelock', weight: 1, flow: [{ loop: [{ cycle: { keys: 1, hold: '20ms', operation: 'acquire-extend-release' } }], count: 2 }] },
    ],
  };
  const scriptFile = join(dir, 'locks.json');
  const reportFile = join(dir, 'artillery-report.json');
  await writeFile(scriptFile, JSON.stringify(script));
  const run = await artilleryRun(dir, scriptFile, reportFile, { workers: kWorkers, limitMs: 110_000 });
  const output = `${run.stdout}\n${run.stderr}`;
  assert.is(run.code, 0, `artillery run exited ${String(run.code ?? run.signal)}:\n${output.slice(-4000)}`);
  assert.not.match(output, /could not be loaded/, 'Artillery loaded the engine');
  assert.match(run.stdout, /ok: pipelock\.acquire\.p99 < 60000/, 'the ensure plugin judged the engine\'s histogram');

  const files = (await readdir(join(dir, 'out'))).sort().map((f) => join(dir, 'out', f));
  assert.is(files.length, kWorkers, `one result per worker: ${files.join(', ')}`);
  const workers = await Promise.all(files.map(async (f) => JSON.parse(await readFile(f, 'utf8')) as RunResult));
  for (const w of workers) assert.ok(w.cycles > 0, 'every worker ran cycles (Artillery divided the phase between them)');
  const merged = join(dir, 'merged.json');
  assert.is(await report(['merge', ...files, '--json', merged]), 0);
  const result = JSON.parse(await readFile(merged, 'utf8')) as RunResult;
  const artillery = (JSON.parse(await readFile(reportFile, 'utf8')) as ArtilleryReport).aggregate;
  const counter = (name: string): number => artillery.counters[name] ?? 0;
  const sum = (of: (w: RunResult) => number): number => workers.reduce((n, w) => n + of(w), 0);

  assert.is(result.runs, kWorkers);
  assert.equal(result.notes, undefined, 'the workers\' windows overlap');
  assert.ok(result.cycles > 100, `${result.cycles} cycles`);
  assert.is(result.cycles, sum((w) => w.cycles), 'cycles: the sum of the workers\'');
  assert.is(result.cycles, counter('pipelock.cycles'), 'cycles: Artillery\'s pipelock.cycles counter');

  const codes = [...new Set(workers.flatMap((w) => Object.keys(w.errors)))].sort();
  assert.equal(result.errors, Object.fromEntries(codes.map((c) => [c, sum((w) => w.errors[c] ?? 0)])), 'errors by code: the sum of the workers\'');
  const artilleryErrors = Object.keys(artillery.counters).filter((k) => k.startsWith('errors.')).map((k) => [k.slice('errors.'.length), counter(k)]);
  assert.equal(result.errors, Object.fromEntries(artilleryErrors), 'errors by code: Artillery\'s errors.CODE counters');
  const failed = Object.values(result.errors).reduce((a, b) => a + b, 0);
  assert.ok(failed > 0, 'the hot key made some acquisitions fail');
  // A failed cycle ends its virtual user; every other one completes.
  assert.is(counter('vusers.failed'), failed, 'Artillery\'s failed virtual users: one per failed cycle');
  assert.is(counter('vusers.created'), counter('vusers.completed') + failed, 'every virtual user ended');

  for (const op of ['acquire', 'extend', 'release', 'cycle'] as const satisfies readonly OpName[]) {
    const { count, max } = result.operations[op];
    assert.is(count, sum((w) => w.operations[op].count), `${op}: the merged count is the sum of the workers'`);
    assert.is(max, Math.max(...workers.map((w) => w.operations[op].max)), `${op}: the merged max is the workers' largest`);
    const sketched = artillery.summaries[`pipelock.${op}`];
    assert.is(sketched?.count ?? 0, count, `${op}: Artillery's pipelock.${op} histogram holds as many samples`);
    // Artillery's max is exact but rounded to 0.1 ms; pipelock's is an HDR bucket (3 significant digits) in µs.
    if (sketched !== undefined) assert.ok(Math.abs(sketched.max - max / 1000) <= 0.051 + max / 1e6, `${op}: max ${sketched.max} ms (Artillery) against ${max} µs (HDR)`);
  }
  assert.ok(result.operations.extend.count > 0, 'the hot entry extended');
  // Per entry: the scenario's name, its cycles adding up to the run's.
  assert.equal(result.mix?.map((p) => p.name), ['orders', 'hot']);
  assert.is(result.mix!.reduce((n, p) => n + p.cycles, 0), result.cycles);
  assert.is(result.mix![1]!.operations.extend.count, result.operations.extend.count, 'only the hot entry extends');
}));

test.run();
