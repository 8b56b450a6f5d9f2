import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { pick } from '../../tools/src/load/loops.js';

const test = suite('loadtest keys');

const window = (countAll: boolean) => ({ from: 0, to: Infinity, countAll, byEnd: false });

test('renew-hold: every slot of every worker holds a distinct key while the key space covers them (exactly, here)', () => {
  const seen = new Set<string>();
  for (let worker = 0; worker < 3; worker++) {
    for (let slot = 0; slot < 1000; slot++) seen.add(pick({ window: window(true), keys: 3000, prefix: 'p:', worker, workers: 3 }, slot)[0]!);
  }
  assert.is(seen.size, 3000);
});

test('renew-hold with fewer keys than slots: slots share keys (contention the user asked for), all within the key space', () => {
  const keys = new Set<string>();
  for (let slot = 0; slot < 10; slot++) keys.add(pick({ window: window(true), keys: 4, prefix: 'p:', worker: 1, workers: 2 }, slot)[0]!);
  assert.equal([...keys].sort(), ['p:1', 'p:3']);
});

test('other operations draw uniformly over the key space', () => {
  const keys = new Set<string>();
  for (let i = 0; i < 2000; i++) keys.add(pick({ window: window(false), keys: 10, prefix: 'p:', worker: 0, workers: 2 }, 0)[0]!);
  assert.is(keys.size, 10, 'a fixed slot still draws every key');
});

test.run();
