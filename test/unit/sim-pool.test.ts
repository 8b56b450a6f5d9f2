import '../helpers/setup.js';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { kBugs, plant } from '../../sim/world/bugs.js';
import { SeedPool } from '../../sim/world/pool.js';
import { tsFlags } from '../helpers/ts-flags.js';

// npm run simulate --jobs N: seeds on worker threads are the runs they are alone, reported in seed order.
const test = suite('simulation seed pool');

/** The outcomes of `seeds` run in one thread of a fresh process (undefined fields dropped, as JSON does). */
function alone(scenario: string, seeds: readonly number[]): unknown {
  const helper = fileURLToPath(new URL('../helpers/sim-alone.ts', import.meta.url));
  const out = execFileSync(process.execPath, [...tsFlags(), helper, scenario, ...seeds.map(String)], { encoding: 'utf8' });
  return JSON.parse(out);
}

test('seeds run on two worker threads give the histories they give alone in a fresh process, sorted by seed', async () => {
  const pool = new SeedPool(2);
  try {
    // Given in descending order: the outcomes must come back ascending whichever thread finished first.
    const parallel = await pool.run('handover', [4, 3, 2, 1]);
    assert.equal(parallel.map((o) => o.seed), [1, 2, 3, 4]);
    assert.equal(JSON.parse(JSON.stringify(parallel)), alone('handover', [1, 2, 3, 4]));
    assert.ok(new Set(parallel.map((o) => o.hash)).size === 4, 'four seeds, four histories');
  } finally {
    await pool.close();
  }
});

test('a violation found on a worker thread is reported as alone: seed, scenario, trace, the replay command', async () => {
  const root = plant(kBugs.find((b) => b.name === 'release-without-owner-check')!);
  const pool = new SeedPool(2);
  try {
    const outcomes = await pool.run('mutex', [1, 2, 3], root);
    const violation = outcomes.find((o) => o.verdict === 'violation');
    assert.ok(violation !== undefined, 'the planted bug survived 3 seeds on the workers');
    const report = violation.report ?? '';
    assert.match(report, new RegExp(`^VIOLATION: scenario mutex, seed ${violation.seed}, history ${violation.hash}\\n`));
    assert.match(report, /\n {2}trace \(r\d, faults, messages\), last \d+ lines:\n/);
    assert.match(report, new RegExp(`replay: npm run simulate -- --scenario mutex --seed ${violation.seed} \\(sources: `));
    assert.not.match(report, /NOT REPRODUCED/);
    assert.ok(outcomes.every((o) => (o.report === undefined) === (o.verdict !== 'violation')));
  } finally {
    await pool.close();
  }
});

test.run();
