import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { overlaps, type Interval } from '../../bench/faults/kinds/check.js';

const test = suite('kinds fault checker');
const shared = (resource: string, enter: number, exit: number): Interval => ({ resource, exclusive: false, enter, exit });
const writer = (resource: string, enter: number, exit: number): Interval => ({ resource, exclusive: true, enter, exit });

test('counts the most holders at once per resource; more than the limit is a violation', () => {
  const log = [shared('a', 0, 10), shared('a', 2, 8), shared('a', 5, 12), shared('b', 0, 10), shared('b', 1, 3)];
  assert.equal(overlaps(log, 3), { most: 3, violations: 0 });
  assert.equal(overlaps(log, 2), { most: 3, violations: 1 });
});

test('a handoff at the same instant is not an overlap; resources do not mix', () => {
  assert.equal(overlaps([shared('a', 0, 5), shared('a', 5, 9), shared('b', 0, 9)], 1), { most: 1, violations: 0 });
});

test('a writer with anyone is a violation, whatever the limit; readers together are not', () => {
  assert.equal(overlaps([shared('r', 0, 10), shared('r', 1, 9), writer('r', 12, 15)], Infinity), { most: 2, violations: 0 });
  assert.equal(overlaps([shared('r', 0, 10), writer('r', 9, 15)], Infinity).violations, 1);
  assert.equal(overlaps([writer('r', 0, 10), shared('r', 3, 4)], Infinity).violations, 1);
  assert.equal(overlaps([writer('r', 0, 10), writer('r', 3, 4)], Infinity).violations, 1);
});

test.run();
