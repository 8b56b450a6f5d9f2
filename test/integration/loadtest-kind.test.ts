import '../helpers/setup.js';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { RunResult } from '../../tools/src/load/result.js';
import { cli } from '../helpers/cli.js';
import { timed } from '../helpers/timeout.js';

// `pipelock loadtest --kind`: the lock kind each cycle takes, over embedded masters.
const test = suite('loadtest --kind');

let dir = '';
test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pipelock-loadtest-kind-'));
});
test.after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('--kind reentrant --depth 3 runs nested cycles over embedded masters and reports the kind', timed(30_000, async () => {
  const json = join(dir, 'reentrant.json');
  const run = await cli(['loadtest', '--kind', 'reentrant', '--depth', '3', '--masters', '3', '--workers', '1', '--concurrency', '4', '--keys', '2', '--hold', '1', '--duration', '1', '--warmup', '0.2', '--json', json]);
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stdout, /pipelock loadtest: acquire-release \(reentrant, depth 3\) over 3 embedded masters/);
  const result = JSON.parse(await readFile(json, 'utf8')) as RunResult;
  assert.equal([result.hosts[0]!.flags.kind, result.hosts[0]!.flags.depth], ['reentrant', 3]);
  assert.ok(result.cycles > 0, 'cycles > 0');
  // 4 contexts on 2 keys contend, so the cycles also show that another context waits (nothing failed).
  assert.equal(result.errors, {});
  assert.is(result.operations.release.count, result.cycles);
}));

test.run();
