import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { runJob, runPool, type Job, type Limits, type Outcome } from '../../scripts/tests/job.js';
import { cpuLine, cpuOfProcess, parseCpuLine } from '../helpers/cpu.js';
import { tsFlags } from '../helpers/ts-flags.js';

// One job of scripts/run-tests.ts (npm test): how a test file's end is read. Children are small
// node -e scripts standing in for a test file.
const test = suite('run-tests job');
const root = join(import.meta.dirname, '..', '..');

const job = (script: string): Job => ({ tier: 'unit', name: 'fixture.test.ts', command: process.execPath, args: ['-e', script], env: {}, check: false, cpu: true, quiet: false });
const out = (text: string): string => `process.stdout.write(${JSON.stringify(text)});`;
const err = (text: string): string => `process.stderr.write(${JSON.stringify(text)});`;

test('the summary is read from stdout: a warning on stderr that lands inside it does not hide it', async () => {
  // The two pipes are read apart; on a loaded machine a warning written before the summary was
  // read between its lines (CI: "options.test.ts: 1 failed; exited (code 0) without uvu's summary").
  const script = out('  Total:     3') + err('(node:1) Warning: something\n') + out('\n  Passed:    3\n  Skipped:   0\n  Duration:  1.00ms\n');
  const outcome = await runJob(job(script), root, 30_000);
  assert.is(outcome.problem, undefined, outcome.problem);
  assert.equal(outcome.tally, { passed: 3, failed: 0, skipped: 0 });
  assert.match(outcome.output, /Warning: something/, 'stderr is still shown');
});

test('a job that exits 0 without a summary fails, saying how many bytes it printed and its last lines', async () => {
  const script = out('starting\n') + err('one\ntwo\nthree\nfour\nfive\nsix\n') + 'process.exit(0);';
  const outcome = await runJob(job(script), root, 30_000);
  assert.is(outcome.tally.failed, 1);
  assert.match(outcome.problem ?? '', /^exited \(code 0\) without uvu's summary; it printed 9 bytes on stdout and 28 on stderr; its last lines: /);
  assert.match(outcome.problem ?? '', /"two" ⏎ "three" ⏎ "four" ⏎ "five" ⏎ "six"$/);
});

test("a file's CPU line is summed (own and children's) and taken out of its output", async () => {
  const script = out('  Total:     1\n  Passed:    1\n  Skipped:   0\n') + err(`${cpuLine({ own: 1200, children: 30 })}\n`);
  const outcome = await runJob(job(script), root, 30_000);
  assert.is(outcome.cpuMs, 1230);
  assert.not.match(outcome.output, /run-tests:cpu/);
  assert.is(parseCpuLine('no line here').cpuMs, undefined);
  // A command name with spaces and a ')' of its own: the fields are counted from the last ')'.
  const stat = '4242 (node (a) b) S 1 2 3 4 5 6 7 8 9 10 150 25 7 3 20 0 1 0';
  assert.equal(cpuOfProcess(stat), { own: 1750, children: 100 });
});

test('a file still running after its summary (something left open) is asked what it holds, then stopped and failed', async () => {
  const setup = join(root, 'test', 'helpers', 'setup.ts');
  const script = out('  Total:     1\n  Passed:    1\n  Skipped:   0\n  Duration:  1.00ms\n') + 'setInterval(() => {}, 1000);';
  const started = performance.now();
  const outcome = await runJob({ ...job(script), args: [...tsFlags(), '--import', setup, '-e', script] }, root, 30_000, 1_000);
  assert.ok(performance.now() - started < 15_000, 'stopped soon after, not at the timeout');
  assert.is(outcome.tally.failed, 1);
  assert.match(outcome.problem ?? '', /did not exit 1 s after its summary/);
  assert.match(outcome.output, /still running after the summary; open: .*Timeout/, 'it said what it holds open');
});

test('a job that prints nothing says so', async () => {
  const outcome = await runJob(job('process.exit(0);'), root, 30_000);
  assert.is(outcome.problem, 'exited (code 0) without uvu\'s summary; it printed 0 bytes on stdout and 0 on stderr, nothing at all');
});

/** A pool's run of `jobs` whose start records who ran beside whom; a job takes `turns(job)` turns of the event loop. */
async function pool(jobs: readonly Job[], limits: Limits, turns: (job: Job) => number): Promise<{ outcomes: Outcome[]; beside: Job[][]; started: string[] }> {
  const running = new Set<Job>();
  const beside: Job[][] = [];
  const started: string[] = [];
  const start = async (j: Job): Promise<Outcome> => {
    running.add(j);
    started.push(j.name);
    beside.push([...running]);
    for (let i = 0; i < turns(j); i++) await new Promise((resolve) => setImmediate(resolve));
    running.delete(j);
    return { job: j, tally: { passed: 1, failed: 0, skipped: 0 }, problem: undefined, output: '', startedMs: 0, endedMs: 0 };
  };
  const outcomes = await runPool(jobs, limits, start, () => undefined, () => false);
  return { outcomes, beside, started };
}

const plain = (name: string, extra: Partial<Job> = {}): Job => ({ ...job(''), name, cpu: false, ...extra });
const load = (jobs: readonly Job[]): number => jobs.reduce((sum, j) => sum + (j.share ?? 1), 0);
// Jobs end in a shuffled order, a few turns of the loop each.
const shuffled = (j: Job): number => (j.name.charCodeAt(0) * 7) % 5 + 1;

test('the pool: a quiet job runs one at a time, the others beside it within a core less; it does not wait for the end', async () => {
  const half = { share: 0.5 };
  const jobs = [...['a', 'b', 'c', 'd'].map((n) => plain(n, half)), plain('q1', { quiet: true }), plain('e', half), plain('f', half),
    plain('q2', { quiet: true, share: 0.2 }), plain('g', half), plain('h', half)];
  const { outcomes, beside, started } = await pool(jobs, { total: 4, cpu: 2, cores: 2 }, (j) => (j.quiet ? 30 : shuffled(j)));
  assert.equal(outcomes.map((o) => o.job.name).sort(), jobs.map((j) => j.name).sort(), 'every job ran once');
  assert.is(Math.max(...beside.map((b) => b.length)), 4, 'four half-core jobs at once when no quiet job runs');
  // The pool thins out for a quiet job whose turn came rather than leaving it to the end.
  assert.ok(started.indexOf('q1') < started.indexOf('e'), `started in the order ${started.join(' ')}`);
  const withQuiet = beside.filter((b) => b.some((j) => j.quiet));
  assert.ok(withQuiet.length > 2);
  for (const b of withQuiet) {
    assert.is(b.filter((j) => j.quiet).length, 1, `${b.map((j) => j.name).join(' ')}: two quiet jobs at once`);
    assert.ok(load(b.filter((j) => !j.quiet)) <= 1, `${b.map((j) => j.name).join(' ')}: more than a core beside a quiet job`);
  }
});

test('the pool: the jobs running keep within the cores by their shares, so files that mostly wait fill in beside busy ones; CPU-bound ones one per core', async () => {
  const jobs = [plain('a'), plain('b'), plain('c'), plain('w1', { share: 0.1 }), plain('w2', { share: 0.1 }), plain('d', { share: 0.6 }),
    plain('u1', { cpu: true, share: 0.3 }), plain('u2', { cpu: true, share: 0.3 }), plain('u3', { cpu: true, share: 0.3 }),
    plain('w3', { share: 0.2 }), plain('e')];
  const { outcomes, beside } = await pool(jobs, { total: 5, cpu: 2, cores: 2 }, (j) => ((j.share ?? 1) < 0.5 ? 12 : shuffled(j)));
  assert.equal(outcomes.map((o) => o.job.name).sort(), jobs.map((j) => j.name).sort(), 'every job ran once');
  for (const b of beside) {
    const names = b.map((j) => j.name).join(' ');
    assert.ok(load(b) <= 2 + 1e-9, `${names}: their shares add up past the cores`);
    assert.ok(b.length <= 5, `${names}: more than total`);
    assert.ok(b.filter((j) => j.cpu).length <= 2, `${names}: three CPU-bound jobs at once`);
  }
  assert.ok(beside.some((b) => b.length >= 3 && b.filter((j) => (j.share ?? 1) === 1).length === 1), 'waiting files ran beside a busy one');
  assert.is(Math.max(...beside.map((b) => b.filter((j) => (j.share ?? 1) === 1).length)), 2, 'two whole-core jobs at once, never three');
});

test('the pool: one job runs whatever its share; one at a time when total is 1', async () => {
  const jobs = [plain('a', { share: 3 }), plain('b'), plain('c', { share: 0.01 })];
  const { outcomes, beside } = await pool(jobs, { total: 1, cpu: 1, cores: 1 }, shuffled);
  assert.is(outcomes.length, 3);
  assert.ok(beside.every((b) => b.length === 1), 'one at a time');
});

test.run();
