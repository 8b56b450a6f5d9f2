import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { contenderInfo } from '../../bench/peers/contender.js';
import { delayFlushes, flushDelayId, flushDelayOf } from '../../bench/peers/flush-delay.js';
import { Flusher } from '../../src/engine/flusher.js';

const test = suite('bench:peers: the flush-window contenders');

test('pipelock-flush-<µs> names a hold; other ids are not one', () => {
  assert.is(flushDelayOf(flushDelayId(50)), 50);
  assert.is(flushDelayOf('pipelock-flush-0'), 0);
  for (const id of ['pipelock', 'pipelock-flush-', 'pipelock-flush-5x', 'raw-quorum']) assert.is(flushDelayOf(id), undefined, id);
  const info = contenderInfo('pipelock-flush-20');
  assert.is(info.kind, 'pipelock');
  assert.is(info.optIn, true, 'measured only when named');
  assert.throws(() => contenderInfo('pipelock-flush-x'), /unknown contender "pipelock-flush-x".*pipelock-flush-<µs>/);
});

test('a held flush runs once per coalescer, no sooner than the hold after the first fell due', async () => {
  // Patched for this process only (each test file is a process of its own, as each bench measurement is).
  delayFlushes(3000);
  const flusher = new Flusher();
  const start = performance.now();
  const flushed: [string, number][] = [];
  const coalescer = (name: string) => ({ flush: () => { flushed.push([name, performance.now() - start]); } });
  flusher.soon(coalescer('a'));
  flusher.later(coalescer('b'));
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(flushed.map(([name]) => name), ['a', 'b']);
  for (const [name, at] of flushed) assert.ok(at >= 3, `${name} flushed ${at.toFixed(2)} ms after it fell due, held 3 ms`);
});

test.run();
