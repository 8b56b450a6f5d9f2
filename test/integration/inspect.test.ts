import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { cli } from '../helpers/cli.js';
import { mastersSuite } from '../helpers/masters.js';
import { closeAll, connectAll, type Probe } from '../helpers/redis.js';
import { timed } from '../helpers/timeout.js';
import { Redlock, runOnce } from '../../src/index.js';
import { runInspect, type InspectReport } from '../../tools/src/ops/inspect.js';

// `pipelock inspect` finds each kind of key a Redlock deployment leaves, planted on real masters.
const test = mastersSuite('inspect', { count: 3, flushEach: true });

const options = { match: '*', limit: 10_000, timeLimitMs: 10_000, count: 500 };
const tokenLike = 'AAAAAAAAAAAAAAAAAAAAAAAAAA1'; // 27 base64url characters, as createToken() makes

/** Writes counted by each master since it started (INFO persistence rdb_changes_since_last_save). */
async function writes(probes: readonly Probe[]): Promise<number[]> {
  return Promise.all(probes.map(async (p) => Number(/rdb_changes_since_last_save:(\d+)/.exec(await p.info('persistence'))?.[1])));
}

test('held, leftover and leaked locks, fencing counters and run-once markers, each found; nothing written', timed(60_000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { retryCount: 0 });
  const probes = await connectAll(masters.urls);
  try {
    await redlock.ready();
    const held = await redlock.acquire(['inv:held'], 30_000);
    const fenced = await redlock.acquire(['inv:fenced'], 30_000, { fencing: true });
    const ran = await runOnce(redlock, 'inv:job', { windowMs: 3_600_000, leaseMs: 5_000, maxAttempts: 3 }, () => Promise.resolve('done'));
    assert.is(ran.status, 'ran');
    // A failed acquisition's remains on one master; a lock written without a TTL on all three.
    await probes[0]!.set('inv:leftover', tokenLike, { PX: 30_000 });
    await Promise.all(probes.map((p) => p.set('inv:leak', tokenLike)));
    await probes[1]!.set('app:plain', 'not a lock');
    const before = await writes(probes);
    const report = await runInspect(masters.urls, options);
    assert.equal(await writes(probes), before, 'read-only: no master counted a write');

    assert.equal(report.locks.map((l) => [l.key, l.state, l.masters]), [
      ['inv:fenced', 'held', 3],
      ['inv:held', 'held', 3],
      ['inv:leak', 'held', 3],
      ['inv:leftover', 'leftover', 1],
    ]);
    const lock = report.locks.find((l) => l.key === 'inv:held')!;
    assert.is(lock.owner, `${held.value.slice(0, 6)}…`);
    assert.ok(lock.pttlMs > 20_000 && lock.pttlMs <= 30_000, String(lock.pttlMs));
    assert.is(report.locks.find((l) => l.key === 'inv:leak')!.pttlMs, -1);
    assert.equal(report.noTtl, [{ key: 'inv:leak', kind: 'lock', masters: 3 }]);
    assert.is(report.otherNoTtl, 1, 'app:plain');
    const fence = report.markers.find((m) => m.kind === 'fence')!;
    assert.equal([fence.key, fence.value, fence.masters], ['pipelock:fence:inv:fenced', fenced.fence, 3]);
    assert.equal(report.markers.filter((m) => m.kind !== 'fence').map((m) => [m.kind, m.key.replace(/\d+$/, 'N'), m.masters]).sort(), [
      ['run-once-attempts', 'inv:job:attempts:N', 3],
      ['run-once-done', 'inv:job:run:N', 3],
    ]);
    assert.ok(report.masters.every((m) => m.complete && m.reachable));

    const run = await cli(['inspect', '--servers', masters.urls.join(','), '--json']);
    assert.is(run.code, 1, 'a lock key without TTL fails the check');
    assert.not.ok(run.stdout.includes(held.value) || run.stdout.includes(fenced.value), 'tokens are never printed whole');
    assert.is((JSON.parse(run.stdout) as InspectReport).locks.length, 4);
  } finally {
    await closeAll(probes);
    await redlock.quit();
  }
}));

test('bounded: --match narrows the scan, --limit stops it and says it is incomplete', timed(60_000, async ({ masters }) => {
  const probes = await connectAll(masters.urls);
  try {
    await Promise.all(probes.map(async (p) => {
      for (let i = 0; i < 50; i++) await p.set(`bulk:${i}`, tokenLike, { PX: 60_000 });
      await p.set('other:1', tokenLike, { PX: 60_000 });
    }));
    const narrowed = await runInspect(masters.urls, { ...options, match: 'other:*' });
    assert.equal(narrowed.locks.map((l) => l.key), ['other:1']);
    const limited = await runInspect(masters.urls, { ...options, limit: 10, count: 5 });
    for (const m of limited.masters) {
      assert.is(m.scanned, 10);
      assert.is(m.complete, false);
    }
    const run = await cli(['inspect', '--servers', masters.urls.join(','), '--match', 'bulk:*', '--limit', '10']);
    assert.is(run.code, 0, run.stderr);
    assert.match(run.stdout, /10 keys examined \(stopped at --limit or --time-limit: incomplete\)/);
  } finally {
    await closeAll(probes);
  }
}));

test.run();
