import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compareToBaseline, formatVerdict, type Baseline } from '../../bench/lib/baseline.js';
import { median, pairedRatio, spread } from '../../bench/lib/stats.js';

const test = suite('bench: baseline rule and statistics');

const baseline: Baseline = { tolerance: 0.15, ratios: { c64: 2, c512: 2.5 } };

test('passes at or above baseline × (1 − tolerance), fails just below', () => {
  const ok = compareToBaseline({ c64: 1.7, c512: 2.5 }, baseline);
  assert.ok(ok.ok);
  assert.equal(ok.rows.map((row) => [row.config, row.ok]), [['c64', true], ['c512', true]]);
  assert.ok(Math.abs(ok.rows[0]!.floor - 1.7) < 1e-12);

  const bad = compareToBaseline({ c64: 1.69, c512: 3 }, baseline);
  assert.not.ok(bad.ok);
  assert.equal(bad.rows.map((row) => row.ok), [false, true]);
});

test('a configuration of the baseline that was not measured, or measured as NaN, fails', () => {
  assert.not.ok(compareToBaseline({ c64: 2 }, baseline).ok);
  assert.not.ok(compareToBaseline({ c64: 2, c512: NaN }, baseline).ok);
  assert.ok(compareToBaseline({ c64: 2, c512: 2.5, c1: 0.1 }, baseline).ok, 'configurations outside the baseline are not judged');
  assert.not.ok(compareToBaseline({}, { tolerance: 0.15, ratios: {} }).ok, 'an empty baseline judges nothing and fails');
});

test('tolerance outside [0, 1) is rejected', () => {
  assert.throws(() => compareToBaseline({}, { tolerance: 1, ratios: {} }), RangeError);
  assert.throws(() => compareToBaseline({}, { tolerance: -0.1, ratios: {} }), RangeError);
});

test('the verdict prints measured, baseline and floor for every configuration', () => {
  const text = formatVerdict(compareToBaseline({ c64: 1.5 }, baseline));
  assert.is(text, [
    'FAIL c64: pipelock ÷ quorum ceiling = 1.500×; baseline 2.000×, floor 1.700×',
    'FAIL c512: pipelock ÷ quorum ceiling = not measured; baseline 2.500×, floor 2.125×',
  ].join('\n'));
});

test('median, spread and paired ratios', () => {
  assert.is(median([3, 1, 2]), 2);
  assert.is(median([4, 1, 3, 2]), 2.5);
  assert.ok(Number.isNaN(median([])));
  assert.equal(spread([5, 1, 3]), { median: 3, min: 1, max: 5, n: 3 });
  // Per-repetition ratios 2, 3, 1 → median 2; a failed repetition (NaN) is left out.
  assert.is(pairedRatio([20, 30, 10, NaN], [10, 10, 10, 10]), 2);
  assert.ok(Number.isNaN(pairedRatio([1], [0])));
});

test.run();
