import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { verdict } from '../../tools/src/cli/sweep.js';

// A sweep step's verdict over its runs (tools/src/cli/sweep.ts): a held first run decides; a failed one is
// confirmed by up to `confirm` more, and the step holds when most of its runs held.
const test = suite('sweep verdict');

/** Runs that hold or fail in the order given; counts how many ran. */
function runs(outcomes: readonly boolean[]): { once: () => Promise<{ ok: boolean; result: number }>; ran: () => number } {
  let i = 0;
  return { once: () => Promise.resolve({ ok: outcomes[i]!, result: i++ }), ran: () => i };
}

const kCases: readonly [readonly boolean[], number, boolean, number][] = [
  // outcomes, confirm, holds, runs made
  [[true], 2, true, 1],
  [[false, false], 2, false, 2],
  [[false, true, true], 2, true, 3],
  [[false, true, false], 2, false, 3],
  [[false], 0, false, 1],
  [[false, true], 1, false, 2],
  [[false, true, true, true], 4, true, 4],
];

for (const [outcomes, confirm, holds, made] of kCases) {
  test(`${outcomes.map((ok) => (ok ? 'held' : 'failed')).join(', ')} with confirm ${confirm}: ${holds ? 'holds' : 'fails'} after ${made} run(s)`, async () => {
    const { once, ran } = runs(outcomes);
    const result = await verdict(once, confirm, () => false);
    assert.is(result.ok, holds);
    assert.is(ran(), made);
    assert.is(result.runs.length, made);
    assert.is(result.held, outcomes.slice(0, made).filter(Boolean).length);
  });
}

test('a stop asked for ends the confirmations: what ran decides', async () => {
  const { once, ran } = runs([false, true, true]);
  const result = await verdict(once, 2, () => true);
  assert.is(ran(), 1);
  assert.is(result.ok, false);
});

test.run();
