import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SeedPool } from '../../sim/world/pool.js';

// npm run simulate --jobs N: seeds on worker threads are the runs they are alone, reported in seed order.
const test = suite('simulation seed pool');

test('seeds run on two worker threads give the histories they give in this thread, sorted by seed', async () => {
  const pool = new SeedPool(2);
  try {
    // Given in descending order: the outcomes must come back ascending whichever thread finished first.
    const parallel = await pool.run('handover', [4, 3, 2, 1]);
    assert.equal(parallel.map((o) => o.seed), [1, 2, 3, 4]);
    const alone = await new SeedPool(1).run('handover', [1, 2, 3, 4]);
    assert.equal(parallel, alone);
    assert.ok(new Set(alone.map((o) => o.hash)).size === 4, 'four seeds, four histories');
  } finally {
    await pool.close();
  }
});

test.run();
