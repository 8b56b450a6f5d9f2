import '../helpers/setup.js';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { RunResult } from '../../tools/src/load/result.js';
import { cli } from '../helpers/cli.js';
import { timed } from '../helpers/timeout.js';

// `pipelock loadtest --kind …` against embedded masters (the CLI starts and stops its own).
const test = suite('loadtest kinds');

let dir = '';
test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pipelock-kinds-'));
});
test.after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const kShortRun = ['--masters', '3', '--workers', '1', '--concurrency', '8', '--keys', '2', '--duration', '1', '--warmup', '0.2'];

test('--kind semaphore --permits 8 runs permits of a semaphore and says so in the report and the result file', timed(40_000, async () => {
  const json = join(dir, 'semaphore.json');
  const run = await cli(['loadtest', '--kind', 'semaphore', '--permits', '8', ...kShortRun, '--json', json], { limitMs: 35_000 });
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stdout, /acquire-release \(semaphore, 8 permits\) over 3 embedded masters/);
  const result = JSON.parse(await readFile(json, 'utf8')) as RunResult;
  assert.equal([result.hosts[0]!.flags.kind, result.hosts[0]!.flags.permits], ['semaphore', 8]);
  assert.ok(result.cycles > 0);
  assert.equal(result.errors, {}, 'no cycle failed');
  // 8 contenders on 2 keys of 8 permits each: only two that picked the same free slot at once collide
  // (a mutex on 2 keys would refuse most of them).
  assert.ok(result.contendedAcquires < result.cycles / 4, `${result.contendedAcquires} of ${result.cycles} acquisitions lost an attempt`);
}));

test('--kind semaphore --operation renew-hold: 8 permits of one key are held at once (a mutex would hold one)', timed(40_000, async () => {
  const json = join(dir, 'hold.json');
  const run = await cli(['loadtest', '--kind', 'semaphore', '--permits', '8', '--operation', 'renew-hold', '--masters', '3', '--workers', '1', '--concurrency', '8',
    '--keys', '1', '--duration', '1', '--warmup', '0.2', '--json', json], { limitMs: 35_000 });
  assert.is(run.code, 0, run.stderr);
  const result = JSON.parse(await readFile(json, 'utf8')) as RunResult;
  assert.is(result.cycles, 8, 'eight permits held to the end');
  assert.equal(result.errors, {});
}));

test('--kind rw with --operation using: read and write locks under using()', timed(40_000, async () => {
  const json = join(dir, 'rw.json');
  const run = await cli(['loadtest', '--kind', 'rw', '--operation', 'using', '--lock-duration', '1000', '--retry-delay', '5', ...kShortRun, '--json', json], { limitMs: 35_000 });
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stdout, /using \(read\/write lock\) over 3 embedded masters/);
  const result = JSON.parse(await readFile(json, 'utf8')) as RunResult;
  assert.is(result.hosts[0]!.flags.kind, 'rw');
  assert.ok(result.cycles > 0);
}));

test.run();
