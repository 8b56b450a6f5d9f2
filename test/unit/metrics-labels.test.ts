import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { throwsInvalid } from '../helpers/reject.js';
import { kMaxResourceLabels, resolveResourceLabel } from '../../src/metrics/labels.js';

// The resource label's values stay bounded whatever the keys: a million keys are not a million series.
const test = suite('metrics resource labels');
const kKeys = 1_000_000;

function distinct(label: (resources: readonly string[]) => string, key: (i: number) => string): Set<string> {
  const values = new Set<string>();
  for (let i = 0; i < kKeys; i++) values.add(label([key(i)]));
  return values;
}

test('templates: the matching template is the value, `other` for the rest; 1,000,000 keys give 3 values', () => {
  const label = resolveResourceLabel(['orders:*', 'tenant:*:invoice:*'], 'resourceLabel')!;
  const values = distinct(label, (i) => (i % 3 === 0 ? `orders:${i}` : i % 3 === 1 ? `tenant:${i % 977}:invoice:${i}` : `users:${i}`));
  assert.equal([...values].sort(), ['orders:*', 'other', 'tenant:*:invoice:*']);
  assert.is(label(['orders:1:items']), 'other', '* is one segment');
});

test(`a function or true: at most ${kMaxResourceLabels} values under 1,000,000 distinct keys, the rest other`, () => {
  for (const option of [true, (r: readonly string[]) => r[0]!]) {
    const values = distinct(resolveResourceLabel(option, 'resourceLabel')!, (i) => `job:${i}`);
    assert.is(values.size, kMaxResourceLabels + 1);
    assert.ok(values.has('other'));
  }
});

test('off by default; a bad option names it', () => {
  assert.is(resolveResourceLabel(undefined, 'options.resourceLabel'), undefined);
  throwsInvalid(() => resolveResourceLabel(42, 'options.resourceLabel'), 'options.resourceLabel');
  throwsInvalid(() => resolveResourceLabel(['orders:*', ''], 'options.resourceLabel'), 'options.resourceLabel[1]');
});

test.run();
