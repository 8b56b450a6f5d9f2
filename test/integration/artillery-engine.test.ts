import '../helpers/setup.js';
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { PipelockEngine } from '../../artillery-engine-pipelock/src/engine.js';
import { report } from '../../tools/src/cli/report.js';
import { Recorder, summarize } from '../../tools/src/load/histogram.js';
import type { OpName, RunResult } from '../../tools/src/load/result.js';
import type { ArtilleryScript, Emitted } from '../helpers/artillery-runner.js';
import { root } from '../helpers/cli.js';
import { mastersSuite } from '../helpers/masters.js';
import { timed } from '../helpers/timeout.js';

// artillery-engine-pipelock driven by two Artillery workers in processes of their own (the minimal
// runner of test/helpers/artillery-runner.ts), each writing its result; report merge of the two must
// give exactly the totals and the latencies of every sample the engines reported to Artillery.
// artillery-run.test.ts runs the real Artillery, whose report shows no samples (sketched percentiles
// rounded to 0.1 ms): this runner keeps them, so only here are the merged percentiles checked one by one.
const test = mastersSuite('artillery engine', { count: 3 });

let dir = '';
test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pipelock-artillery-'));
});
test.after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Starts one worker process: `ready` resolves once its engine connected, `run()` starts its phases, `result` is what its engine emitted. */
function worker(scriptFile: string): { ready: Promise<void>; run: () => void; result: Promise<Emitted> } {
  const child = spawn(process.execPath, ['--conditions=pipelock-source', '--import', 'tsx', join(root, 'test/helpers/artillery-worker.ts'), scriptFile], {
    cwd: root, env: { ...process.env, ARTILLERY_TEST_RUN_ID: 'merge-test' }, stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let ready: () => void = () => undefined;
  const readiness = new Promise<void>((resolve) => (ready = resolve));
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    if (stderr.includes('readyWaiting\n')) ready();
  });
  const result = new Promise<Emitted>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) resolve(JSON.parse(stdout) as Emitted);
      else reject(new Error(`worker exited ${String(code)}: ${stderr}`));
    });
  });
  return { ready: Promise.race([readiness, result.then(() => undefined)]), run: () => child.stdin.end('run\n'), result };
}

/** The summary of raw samples (ms) recorded as the load tester records them. */
function summaryOf(samples: readonly number[]): ReturnType<typeof summarize> {
  const recorder = new Recorder();
  for (const ms of samples) recorder.recordMs(ms);
  const summary = summarize(recorder.histogram);
  recorder.histogram.destroy();
  return summary;
}

test('two workers: report merge of their files equals the sum of what they reported, and the latencies of all their samples', timed(180_000, async ({ masters }) => {
  const script: ArtilleryScript = {
    config: {
      target: masters.urls.join(','),
      phases: [{ duration: 2, arrivalRate: 60 }],
      engines: { pipelock: { json: join(dir, 'out', 'pipelock-{worker}.json'), lockDuration: '1s', retryCount: 2, retryDelay: '5ms' } },
    },
    scenarios: [
      { name: 'orders', engine: 'pipelock', weight: 3, flow: [{ cycle: { keys: 1000, hold: '1ms' } }] },
      // Two hot keys: workers contend for them (one prefix per run); some acquisitions retry or fail.
      { name: 'hot', engine: 'pipelock', weight: 1, flow: [{ loop: [{ cycle: { keys: { distribution: 'hot', count: 50, hot: 2, share: '90%' }, hold: '2ms', operation: 'acquire-extend-release' } }], count: 2 }] },
    ],
  };
  const scriptFile = join(dir, 'script.json');
  await writeFile(scriptFile, JSON.stringify(script));
  const workers = [worker(scriptFile), worker(scriptFile)];
  await Promise.all(workers.map((w) => w.ready));
  for (const w of workers) w.run();
  const emitted = await Promise.all(workers.map((w) => w.result));
  const files = (await readdir(join(dir, 'out'))).map((f) => join(dir, 'out', f));
  assert.is(files.length, 2, `one result per worker: ${files.join(', ')}`);
  const merged = join(dir, 'merged.json');
  assert.is(await report(['merge', ...files, '--json', merged]), 0);
  const result = JSON.parse(await readFile(merged, 'utf8')) as RunResult;

  const counter = (name: string): number => emitted.reduce((n, e) => n + (e.counters[name] ?? 0), 0);
  assert.is(result.runs, 2);
  assert.ok(result.cycles > 100, `${result.cycles} cycles`);
  assert.is(result.cycles, counter('pipelock.cycles'), 'cycles: the sum of the workers\' pipelock.cycles counters');
  const errors = Object.fromEntries(emitted.flatMap((e) => Object.keys(e.counters)).filter((k) => k.startsWith('errors.')).map((k) => [k.slice('errors.'.length), counter(k)]));
  assert.equal(result.errors, errors, 'errors by code: the sum of the workers\' errors.CODE counters');
  assert.is(counter('vusers.created'), counter('vusers.completed') + counter('vusers.failed'), 'every virtual user ended');
  assert.equal(result.notes, undefined, 'the workers\' windows overlap');
  for (const op of ['acquire', 'extend', 'release', 'cycle'] as const satisfies readonly OpName[]) {
    const samples = emitted.flatMap((e) => e.histograms[`pipelock.${op}`] ?? []);
    const { count, mean, p50, p90, p99, p999, max } = result.operations[op];
    assert.equal({ count, mean, p50, p90, p99, p999, max }, summaryOf(samples), `${op}: the merged HDR summary equals that of the ${samples.length} samples both workers reported`);
  }
  assert.ok(result.operations.extend.count > 0, 'the hot entry extended');
  // Per entry: the scenario's name, its cycles adding up to the run's.
  assert.equal(result.mix?.map((p) => p.name), ['orders', 'hot']);
  assert.is(result.mix!.reduce((n, p) => n + p.cycles, 0), result.cycles);
  assert.is(result.mix![1]!.operations.extend.count, result.operations.extend.count, 'only the hot entry extends');
}));

test('a result file that cannot be written is said, naming the file, and fails the worker; the runner\'s done does not throw', timed(30_000, async ({ masters }) => {
  const blocker = join(dir, 'not-a-folder');
  await writeFile(blocker, '');
  const ee = new EventEmitter();
  const engine = new PipelockEngine({ config: { target: masters.urls.join(','), engines: { pipelock: { json: join(blocker, 'result-{worker}.json') } } },
    scenarios: [{ engine: 'pipelock', flow: [{ cycle: { keys: 10 } }] }] }, ee);
  await engine.init();
  const said: string[] = [];
  const error = console.error;
  console.error = (...args: unknown[]) => { said.push(args.join(' ')); };
  try {
    ee.emit('done');
  } finally {
    console.error = error;
  }
  assert.ok(said.some((line) => line.includes(`${blocker}/result-`) && line.includes('EEXIST')), said.join('\n'));
  assert.is(process.exitCode, 1);
  process.exitCode = 0;
}));

test.run();
