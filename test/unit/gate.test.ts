import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { gateOf, gateOrder } from '../../src/waiting/gate.js';

const test = suite('gate');

test('every process listing the same masters, in any order, picks the same gate for a key', () => {
  const names = ['10.0.0.3:6379', '10.0.0.1:6379', '10.0.0.5:6379', '10.0.0.2:6379', '10.0.0.4:6379'];
  const shuffled = [names[3]!, names[0]!, names[4]!, names[2]!, names[1]!];
  const a = gateOrder(names);
  const b = gateOrder(shuffled);
  for (const key of ['jobs', 'orders:17', 'contended:hot', '', 'ü']) {
    assert.is(names[gateOf(a, key)], shuffled[gateOf(b, key)], key);
  }
});

test('keys spread over the masters', () => {
  const order = gateOrder(['a', 'b', 'c', 'd', 'e']);
  const seen = new Set<number>();
  for (let i = 0; i < 100; i++) seen.add(gateOf(order, `key:${i}`));
  assert.is(seen.size, 5);
});

test.run();
