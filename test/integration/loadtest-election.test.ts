import '../helpers/setup.js';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { FailoverResult } from '../../tools/src/load/failover.js';
import { cli } from '../helpers/cli.js';
import { timed } from '../helpers/timeout.js';

// `pipelock loadtest --kind election`: failover time, over embedded masters.
const test = suite('loadtest --kind election');

let dir = '';
test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pipelock-loadtest-election-'));
});
test.after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const kLease = 600;

test('a short run measures crash and resign failovers: a crash waits out the lease its leader had left, a resign does not', timed(60_000, async () => {
  const json = join(dir, 'election.json');
  const run = await cli(['loadtest', '--kind', 'election', '--masters', '3', '--lock-duration', String(kLease), '--kills', '4', '--hold', '50', '--json', json], { limitMs: 55_000 });
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stdout, /crash → next leader\s+n=4/);
  assert.match(run.stdout, /lease 600 ms, renewDeadline 200 ms, retryPeriod 80 ms/);
  const result = JSON.parse(await readFile(json, 'utf8')) as FailoverResult;
  assert.equal([result.crash.count, result.resign.count], [4, 4]);
  assert.equal(result.errors, {});
  for (const sample of result.samples.filter((s) => s.death === 'crash')) {
    // The keys of a crashed leader stay until its lease runs out: no successor before that (less the drift allowance).
    assert.ok(sample.failoverMs >= sample.leaseLeftMs - 0.02 * kLease, `crash failover ${sample.failoverMs} ms with ${sample.leaseLeftMs} ms of lease left`);
    assert.ok(sample.leaseLeftMs > kLease / 3, `a leader killed 50 ms after leading had only ${sample.leaseLeftMs} ms left`);
    // …and one is found soon after: campaigners retry every retryPeriod (80 ms); generous for a loaded machine.
    assert.ok(sample.failoverMs - sample.leaseLeftMs < 1_500, `${sample.failoverMs - sample.leaseLeftMs} ms after the lease ran out`);
  }
  // A resign wakes the next campaigner at once: faster than any crash, which waits out a lease.
  assert.ok(result.resign.max < result.crash.min, `resign max ${result.resign.max} ms, crash min ${result.crash.min} ms`);
}));

test.run();
