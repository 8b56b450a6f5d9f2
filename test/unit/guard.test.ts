import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { setImmediate as tick } from 'node:timers/promises';
import { Guard, type Guarded } from '../../src/watch/guard.js';
import { KeyNames } from '../../src/engine/keys.js';
import type { MemberWatch } from '../../src/watch/watch.js';
import { revokedKey } from '../../src/engine/keys.js';

const test = suite('guard');

/** A watch whose reads answer from `values` and are counted. */
function fakeWatch(index: number, values: Map<string, string | null>, reads: string[][]): MemberWatch {
  return {
    index,
    readyFor: () => true,
    read: () => Promise.resolve(0),
    owners: (keys) => {
      reads.push([...keys]);
      return Promise.resolve(keys.map((key) => values.get(key) ?? null));
    },
    forget: () => undefined,
    close: () => undefined,
  };
}

function held(key: string, value: string): Guarded & { active: boolean } {
  return { lock: { resources: [key], value }, active: true };
}

test('two locks of one key are judged apart; the key stays watched until both are removed', async () => {
  const values = new Map<string, string | null>([['k', 'b']]);
  const reads: string[][] = [];
  // Three masters, the third without a watch: its changes are never read.
  const watches = [fakeWatch(0, values, reads), fakeWatch(1, values, reads), undefined];
  const lost: [Guarded, readonly number[]][] = [];
  const guard = new Guard(watches, 2, new KeyNames(''), (h, on) => lost.push([h, on]));
  const a = held('k', 'a');
  const b = held('k', 'b');
  guard.add(a);
  guard.add(b);
  await tick();
  // a is read as another's on both watched masters: more than N − quorum (1) of them.
  assert.equal(lost, [[a, [0, 1]]]);
  reads.length = 0;
  guard.changed(2, 'k');
  guard.changed(0, 'k');
  await tick();
  assert.equal(reads, [['k', revokedKey('k')]], 'only the watched master reads again (the key and its revoked-marker)');
  values.set('k', null);
  guard.changed(0, 'k');
  guard.changed(1, 'k');
  await tick();
  assert.equal(lost.map(([h]) => h), [a, b]);
  reads.length = 0;
  guard.changed(0, 'k');
  guard.ready(1);
  await tick();
  assert.equal(reads, [], 'nothing watched once both are gone');
});

test('a loss on no more masters than the quorum can spare is not reported; a released lock is not judged', async () => {
  const values = new Map<string, string | null>([['x', 'mine'], ['y', 'theirs']]);
  const other = new Map<string, string | null>([['x', 'someone'], ['y', 'theirs']]);
  const reads: string[][] = [];
  const watches = [fakeWatch(0, other, reads), fakeWatch(1, values, reads), fakeWatch(2, values, reads)];
  const lost: Guarded[] = [];
  const guard = new Guard(watches, 2, new KeyNames(''), (h) => lost.push(h));
  const x = held('x', 'mine');
  const y = held('y', 'mine');
  guard.add(x);
  guard.add(y);
  guard.remove(y);
  await tick();
  assert.equal(lost, [], 'x is lost on one master of three (one may be spared); y was removed before the answer');
  other.set('x', null);
  values.set('x', null);
  guard.changed(1, 'x');
  await tick();
  assert.equal(lost, [x]);
});

test('a key read gone with a revoked-marker beside it is lost with the marker\'s reason; gone without one, with none', async () => {
  const values = new Map<string, string | null>([[revokedKey('r'), 'stuck job']]);
  const watches = [fakeWatch(0, values, []), fakeWatch(1, values, []), fakeWatch(2, values, [])];
  const lost: [Guarded, readonly number[], string | undefined][] = [];
  const guard = new Guard(watches, 2, new KeyNames(''), (h, on, revoked) => lost.push([h, on, revoked]));
  const revoked = held('r', 'a');
  const gone = held('g', 'b');
  guard.add(revoked);
  guard.add(gone);
  await tick();
  assert.equal(lost, [[revoked, [0, 1], 'stuck job'], [gone, [0, 1], undefined]]);
});

test('a revoked-marker is read only by the holder of the token it names (or by any holder when it names none)', async () => {
  const values = new Map<string, string | null>([[revokedKey('r'), 'a\nstuck job'], [revokedKey('o'), 'earlier\nold job'], [revokedKey('s'), '\nset deleted']]);
  const watches = [fakeWatch(0, values, []), fakeWatch(1, values, []), fakeWatch(2, values, [])];
  const lost: [Guarded, readonly number[], string | undefined][] = [];
  const guard = new Guard(watches, 2, new KeyNames(''), (h, on, revoked) => lost.push([h, on, revoked]));
  const revoked = held('r', 'a');
  const later = held('o', 'b');
  const reader = held('s', 'c');
  for (const h of [revoked, later, reader]) guard.add(h);
  await tick();
  assert.equal(lost, [[revoked, [0, 1], 'stuck job'], [later, [0, 1], undefined], [reader, [0, 1], 'set deleted']]);
});

test.run();
