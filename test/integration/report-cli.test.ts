import '../helpers/setup.js';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Comparison } from '../../tools/src/load/compare.js';
import type { RunResult } from '../../tools/src/load/result.js';
import { report } from '../../tools/src/cli/report.js';
import { cli, type Exit } from '../helpers/cli.js';
import { syntheticRun, type RunShape } from '../helpers/results.js';
import { timed } from '../helpers/timeout.js';

// `pipelock report compare|merge` as CI runs it: exit codes, outputs, and errors naming the file or flag.
const test = suite('report cli');

let dir = '';
test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pipelock-report-'));
});
test.after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** `pipelock report …` in this process (a spawn costs seconds under tsx): exit code and what it printed. */
async function inProcess(args: string[]): Promise<Exit> {
  const out = { stdout: '', stderr: '' };
  const saved = { log: console.log, error: console.error, write: process.stdout.write.bind(process.stdout) };
  console.log = (...a: unknown[]) => void (out.stdout += `${a.join(' ')}\n`);
  console.error = (...a: unknown[]) => void (out.stderr += `${a.join(' ')}\n`);
  process.stdout.write = (chunk: string) => (out.stdout += chunk, true);
  try {
    return { code: await report(args), signal: null, ...out };
  } finally {
    Object.assign(console, { log: saved.log, error: saved.error });
    process.stdout.write = saved.write;
  }
}

async function file(name: string, shape: RunShape | RunResult | string): Promise<string> {
  const path = join(dir, name);
  const text = typeof shape === 'string' ? shape : JSON.stringify('format' in shape ? shape : syntheticRun(shape));
  await writeFile(path, text);
  return path;
}

test('compare: no regression → exit 0 and the table on stdout', timed(30_000, async () => {
  const run = await inProcess(['compare', await file('base.json', {}), await file('same.json', { scaleMs: 1.02 })]);
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stdout, /^pipelock report compare: no regression beyond the limits/);
  assert.match(run.stdout, /acquire p99 \(µs\) +9991 \(/);
}));

test('compare: one run a side past the limits → exit 3, no verdict, and the commands to repeat the runs', timed(30_000, async () => {
  const run = await inProcess(['compare', join(dir, 'base.json'), await file('slow.json', { scaleMs: 1.3 })]);
  assert.is(run.code, 3, run.stdout + run.stderr);
  assert.match(run.stdout, /^pipelock report compare: INCONCLUSIVE, too few runs a side to tell from run-to-run noise: acquire p50 \+30\.0%/);
  assert.match(run.stderr, /no verdict \(exit 3\).*writing \S*base-2\.json, \S*base-3\.json, \S*slow-2\.json, \S*slow-3\.json/);
  assert.match(run.stderr, /\n {2}pipelock report compare \S*base\.json,\S*base-2\.json,\S*base-3\.json \S*slow\.json,\S*slow-2\.json,\S*slow-3\.json$/m);
}));

test('compare: a regression over 3 runs a side → exit 1; --markdown - on stdout (table on stderr), --json and --html written', timed(30_000, async () => {
  const json = join(dir, 'c.json');
  const html = join(dir, 'c.html');
  const base = await Promise.all([1, 1.02, 0.98].map((s, i) => file(`base-${i}.json`, { scaleMs: s })));
  const slow = await Promise.all([1.3, 1.32, 1.28].map((s, i) => file(`slow-${i}.json`, { scaleMs: s })));
  const run = await cli(['report', 'compare', base.join(','), slow.join(','), '--markdown', '-', '--json', json, '--html', html]);
  assert.is(run.code, 1, run.stderr);
  assert.ok(run.stdout.startsWith('### pipelock report compare: ❌ REGRESSED: acquire p50 +30.0%'), run.stdout.slice(0, 200));
  assert.match(run.stderr, /^pipelock report compare: REGRESSED/);
  const comparison = JSON.parse(await readFile(json, 'utf8')) as Comparison;
  assert.is(comparison.verdict, 'regressed');
  assert.is(comparison.rows.find((r) => r.op === 'acquire' && r.metric === 'p99')?.verdict, 'regressed');
  const page = await readFile(html, 'utf8');
  assert.ok(page.includes('<table id="comparison">') && page.includes('base ') && page.includes('new '));
}));

test('compare: several runs a side, overlapping → exit 0 (noise)', timed(30_000, async () => {
  const base = await Promise.all([1, 1.1, 0.95].map((s, i) => file(`b${i}.json`, { scaleMs: s })));
  const next = await Promise.all([1.25, 1.05, 1.3].map((s, i) => file(`n${i}.json`, { scaleMs: s })));
  const run = await inProcess(['compare', ...base.flatMap((f) => ['--base', f]), ...next.flatMap((f) => ['--new', f]), '--max-regression', 'p50=10%,p90=10%,p99=10%']);
  assert.is(run.code, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /acquire p99 \(µs\).*\+25\.0%.*noise/);
}));

test('compare: bad input → exit 2 naming the file or the flag', timed(60_000, async () => {
  const base = join(dir, 'base.json');
  const bad = syntheticRun();
  const cases: [string[], RegExp][] = [
    [[base, await file('text.json', 'not json')], /text\.json is not JSON .*pipelock loadtest --json/],
    [[base, await file('other.json', '{"format":"something","version":1}')], /other\.json is not a result of pipelock loadtest --json/],
    [[base, await file('count.json', { ...bad, operations: { ...bad.operations, acquire: { ...bad.operations.acquire, count: 5 } } })], /count\.json has operations\.acquire\.count 5 but its histogram holds 20000 values/],
    [[base, join(dir, 'missing.json')], /missing\.json cannot be read: ENOENT/],
    [[base, await file('workers.json', { flags: { workers: 8 } })], /workers\.json ran with --workers 8, .*base\.json with 2: compare runs made under the same load/],
    [[base, await file('stopped.json', { interrupted: true })], /stopped\.json is a run stopped before its end/],
    [[base, base], /--new must not name a result file twice/],
    [[base, join(dir, 'slow.json'), '--max-regression', 'p95=1%'], /--max-regression names a metric that is not one of/],
  ];
  for (const [args, message] of cases) {
    const run = await inProcess(['compare', ...args]);
    assert.is(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, message);
  }
}));

test('merge: windows that overlap merge silently; a partial overlap is noted; disjoint ones are refused (exit 2) unless --allow-disjoint', timed(60_000, async () => {
  const t = Date.UTC(2026, 0, 1);
  const a = await file('w-a.json', { windowFrom: t });
  const together = await inProcess(['merge', a, await file('w-b.json', { windowFrom: t + 20 })]);
  assert.is(together.code, 0, together.stderr);
  assert.not.match(together.stdout, /note/);
  const out = join(dir, 'partial-merged.json');
  const partial = await inProcess(['merge', a, await file('w-c.json', { windowFrom: t + 5_000 }), '--json', out]);
  assert.is(partial.code, 0, partial.stderr);
  assert.match(partial.stdout, /note +the measured windows overlap for 5\.0 s of the shortest one's 10\.0 s/);
  assert.match((JSON.parse(await readFile(out, 'utf8')) as RunResult).notes?.[0] ?? '', /overlap for 5\.0 s/);
  const later = await file('w-d.json', { windowFrom: t + 60_000 });
  const disjoint = await inProcess(['merge', a, later]);
  assert.is(disjoint.code, 2);
  assert.match(disjoint.stderr, /w-a\.json stopped measuring at 2026-01-01T00:00:10\.000Z, before .*w-d\.json started at 2026-01-01T00:01:00\.000Z/);
  assert.is((await inProcess(['merge', a, later, '--allow-disjoint'])).code, 0);
}));

test('loadtest --start-at: the measured window opens one warm-up after the given wall-clock time', timed(60_000, async () => {
  const json = join(dir, 'start-at.json');
  // Ahead enough to start node, a master and a worker first; a machine too loaded for the short lead says so (the
  // start had passed when the workers were ready, or before the command read it) and gets the long one.
  let startAt = 0;
  let run: Exit | undefined;
  for (const leadMs of [4_000, 15_000]) {
    startAt = Math.ceil(Date.now() / 1000) * 1000 + leadMs;
    run = await cli(['loadtest', '--masters', '1', '--workers', '1', '--duration', '1', '--warmup', '0.3', '--start-at', `@${startAt / 1000}`, '--json', json],
      { limitMs: 50_000 });
    if (!/had passed when the workers were ready|--start-at must be in the future/.test(run.stderr)) break;
  }
  assert.is(run!.code, 0, run!.stderr);
  assert.match(run!.stderr, new RegExp(`starting at ${new Date(startAt).toISOString()}`));
  const result = JSON.parse(await readFile(json, 'utf8')) as RunResult;
  const from = Date.parse(result.windows![0]!.from);
  assert.ok(from - startAt >= 300 && from - startAt < 300 + 250, `window opened ${from - startAt} ms after --start-at`);
  assert.is(result.hosts[0]!.flags.startAt, new Date(startAt).toISOString());
}));

test.run();
