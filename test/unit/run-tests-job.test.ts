import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { runJob, type Job } from '../../scripts/tests/job.js';

// One job of scripts/run-tests.ts (npm test): how a test file's end is read. Children are small
// node -e scripts standing in for a test file.
const test = suite('run-tests job');
const root = join(import.meta.dirname, '..', '..');

const job = (script: string): Job => ({ tier: 'unit', name: 'fixture.test.ts', command: process.execPath, args: ['-e', script], env: {}, check: false, cpu: true });
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

test('a job that prints nothing says so', async () => {
  const outcome = await runJob(job('process.exit(0);'), root, 30_000);
  assert.is(outcome.problem, 'exited (code 0) without uvu\'s summary; it printed 0 bytes on stdout and 0 on stderr, nothing at all');
});

test.run();
