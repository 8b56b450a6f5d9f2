import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { runJob, runPool, type Job, type Outcome } from '../../scripts/tests/job.js';
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

test('the pool: a quiet job runs beside at most limits.quiet jobs in all, one quiet job at a time, and every job runs', async () => {
  const plain = (name: string, extra: Partial<Job> = {}): Job => ({ ...job(''), name, cpu: false, ...extra });
  const jobs = [...['a', 'b', 'c', 'd'].map((n) => plain(n)), plain('q1', { quiet: true }), plain('e'), plain('f'), plain('q2', { quiet: true }), plain('g'), plain('h')];
  const running = new Set<Job>();
  const seen: { job: string; beside: number; quietBeside: number }[] = [];
  const started: string[] = [];
  let most = 0;
  const start = async (j: Job): Promise<Outcome> => {
    running.add(j);
    started.push(j.name);
    most = Math.max(most, running.size);
    for (const r of running) if (r.quiet) seen.push({ job: r.name, beside: running.size, quietBeside: [...running].filter((x) => x.quiet).length });
    // Jobs end in a shuffled order, a few turns of the loop each; a quiet one outlasts several others.
    const turns = j.quiet ? 30 : (j.name.charCodeAt(0) * 7) % 5 + 1;
    for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
    running.delete(j);
    return { job: j, tally: { passed: 1, failed: 0, skipped: 0 }, problem: undefined, output: '', startedMs: 0, endedMs: 0 };
  };
  const outcomes = await runPool(jobs, { total: 4, cpu: 2, quiet: 2 }, start, () => undefined, () => false);
  assert.equal(outcomes.map((o) => o.job.name).sort(), jobs.map((j) => j.name).sort(), 'every job ran once');
  assert.is(most, 4, 'four at once when no quiet job runs');
  assert.ok(seen.length > 0);
  // The pool thins out for a quiet job whose turn came rather than leaving it to the end.
  assert.ok(started.indexOf('q1') < started.indexOf('e'), `started in the order ${started.join(' ')}`);
  for (const s of seen) {
    assert.ok(s.beside <= 2, `${s.job} ran with ${s.beside} jobs in all`);
    assert.is(s.quietBeside, 1, `${s.job} ran beside another quiet job`);
  }
});

test('the pool: idle jobs may take the idle slots past total, busy ones never; a quiet job still runs beside at most limits.quiet', async () => {
  const plain = (name: string, extra: Partial<Job> = {}): Job => ({ ...job(''), name, cpu: false, ...extra });
  const jobs = [plain('a'), plain('b'), plain('c'), plain('i1', { idle: true }), plain('i2', { idle: true }), plain('d'),
    plain('q', { quiet: true }), plain('i3', { idle: true }), plain('e')];
  const running = new Set<Job>();
  let most = 0;
  let mostBusy = 0;
  const quietBeside: number[] = [];
  const start = async (j: Job): Promise<Outcome> => {
    running.add(j);
    most = Math.max(most, running.size);
    mostBusy = Math.max(mostBusy, [...running].filter((r) => r.idle !== true).length);
    for (const r of running) if (r.quiet) quietBeside.push(running.size);
    const turns = j.idle === true ? 12 : j.quiet ? 20 : (j.name.charCodeAt(0) * 7) % 5 + 1;
    for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
    running.delete(j);
    return { job: j, tally: { passed: 1, failed: 0, skipped: 0 }, problem: undefined, output: '', startedMs: 0, endedMs: 0 };
  };
  const outcomes = await runPool(jobs, { total: 2, cpu: 2, quiet: 2, idle: 1 }, start, () => undefined, () => false);
  assert.equal(outcomes.map((o) => o.job.name).sort(), jobs.map((j) => j.name).sort(), 'every job ran once');
  assert.is(most, 3, 'two slots and one idle slot');
  assert.is(mostBusy, 2, 'jobs that do not wait never take the idle slot');
  assert.ok(quietBeside.length > 0 && quietBeside.every((n) => n <= 2), `the quiet job ran beside ${quietBeside.join(', ')} in all`);
});

test.run();
