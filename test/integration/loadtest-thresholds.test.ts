import '../helpers/setup.js';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import type { RunResult } from '../../tools/src/load/result.js';
import { cli } from '../helpers/cli.js';
import { mastersSuite } from '../helpers/masters.js';
import { timed } from '../helpers/timeout.js';

// Thresholds judge the run each second and at its end; a failed one exits 99 (k6's code), shown in every output.
const test = mastersSuite('loadtest thresholds', { count: 3 });

let dir = '';
test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pipelock-thresholds-'));
});
test.after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const kShort = ['--workers', '2', '--duration', '1', '--warmup', '0.2'];

async function read(file: string): Promise<RunResult> {
  return JSON.parse(await readFile(file, 'utf8')) as RunResult;
}

test('a bad rule exits 2 naming --threshold and the rule', timed(20_000, async () => {
  const run = await cli(['loadtest', '--threshold', 'acquire.p99<2parsecs']);
  assert.is(run.code, 2);
  assert.match(run.stderr, /^pipelock loadtest: --threshold is not a threshold: METRIC\.STAT<VALUE.*got "acquire\.p99<2parsecs"/);
}));

test('rules that hold exit 0; one that fails exits 99, FAIL in the table, ok false in the JSON, fail in the HTML', timed(40_000, async ({ masters }) => {
  const servers = ['--servers', masters.urls.join(',')];
  const pass = join(dir, 'pass.json');
  const ok = await cli(['loadtest', ...servers, ...kShort, '--threshold', 'acquire.p99<60s', '--threshold', 'cycles.count>0', '--json', pass]);
  assert.is(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /^threshold +pass {2}acquire\.p99<60s {2}[\d.]+(ms|µs)$/m);
  assert.match(ok.stdout, /^threshold +pass {2}errors\.rate<=50% \(default: errors must not exceed cycles\)/m);
  assert.equal((await read(pass)).thresholds!.map((t) => [t.rule, t.ok]), [['acquire.p99<60s', true], ['cycles.count>0', true], ['errors.rate<=50%', true]]);

  const fail = join(dir, 'fail.json');
  const html = join(dir, 'fail.html');
  const bad = await cli(['loadtest', ...servers, ...kShort, '--threshold', 'acquire.p50<1us', '--threshold', 'errors.rate<1%', '--json', fail, '--html', html]);
  assert.is(bad.code, 99, bad.stderr);
  assert.match(bad.stdout, /^threshold +FAIL {2}acquire\.p50<1us {2}\d+/m);
  assert.match(bad.stderr, /1 threshold\(s\) failed: acquire\.p50<1us/);
  const result = await read(fail);
  assert.equal(result.thresholds!.map((t) => [t.rule, t.ok]), [['acquire.p50<1us', false], ['errors.rate<1%', true]]);
  assert.ok(result.thresholds![0]!.failedSecond !== undefined, 'judged live too');
  const page = await readFile(html, 'utf8');
  assert.match(page, /<table id="thresholds">.*<code>acquire\.p50&lt;1us<\/code>.*<span class="bad">fail<\/span>/);
}));

test('--abort-on-fail stops the run in the first second past the grace', timed(40_000, async ({ masters }) => {
  const json = join(dir, 'abort.json');
  const run = await cli(['loadtest', '--servers', masters.urls.join(','), '--workers', '2', '--duration', '20', '--warmup', '0.2',
    '--threshold', 'acquire.p50<1us', '--abort-on-fail', '--abort-grace', '1', '--json', json]);
  assert.is(run.code, 99, run.stderr);
  assert.match(run.stderr, /threshold acquire\.p50<1us failed, stopping \(--abort-on-fail\)/);
  assert.match(run.stdout, /^aborted +the run was stopped early: acquire\.p50<1us failed/m);
  const result = await read(json);
  assert.is(result.abortedBy, 'acquire.p50<1us');
  assert.is(result.interrupted, true);
  assert.ok(result.measuredSeconds < 10, `measured ${result.measuredSeconds} s of 20`);
  // It failed from the first measured second, and stopped the run in the first one past the grace.
  assert.is(result.thresholds![0]!.failedSecond, 1);
}));

test('by default a run whose errors exceed its cycles fails (exit 99)', timed(40_000, async ({ masters }) => {
  // One key held 20 ms by 16 contenders that never retry: nearly every acquisition fails.
  const run = await cli(['loadtest', '--servers', masters.urls.join(','), ...kShort, '--keys', '1', '--hold', '20ms', '--retry-count', '0']);
  assert.is(run.code, 99, run.stderr);
  assert.match(run.stdout, /^threshold +FAIL {2}errors\.rate<=50% \(default/m);
}));

test('open loop past capacity: late starts counted, shown, and judged by late.rate', timed(40_000, async ({ masters }) => {
  // One key held 5 ms serves ~200 cycles/s; 1000/s are due, so the generator falls ever further behind.
  const json = join(dir, 'late.json');
  const run = await cli(['loadtest', '--servers', masters.urls.join(','), ...kShort, '--keys', '1', '--hold', '5ms', '--rate', '1000',
    '--retry-count', '-1', '--threshold', 'late.rate<1%', '--threshold', 'errors.count>=0', '--json', json]);
  assert.is(run.code, 99, run.stderr);
  const result = await read(json);
  assert.ok(result.due !== undefined && result.due >= 990 && result.due <= 1010, `due ${String(result.due)}`);
  assert.ok(result.lateStarts! > result.due / 2, `late starts ${String(result.lateStarts)} of ${result.due}`);
  assert.match(run.stdout, new RegExp(`^late starts +${result.lateStarts!} of ${result.due} cycles due`, 'm'));
  assert.match(run.stdout, /^threshold +FAIL {2}late\.rate<1%/m);
}));

test.run();
