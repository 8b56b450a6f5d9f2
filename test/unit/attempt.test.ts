import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AGAINST, Attempt, FAILED, FOR, PENDING, TIMEOUT } from '../../src/engine/attempt.js';
import { mock } from 'node:test';
import { Deadlines, type Expiring } from '../../src/engine/deadlines.js';
import { Heap } from '../../src/util/heap.js';
import { LOST, UNDECIDED, WON } from '../../src/engine/quorum.js';
import { OP_ACQUIRE, OP_RELEASE } from '../../src/protocol/opcodes.js';

const test = suite('attempt');
const make = (needAll = false, n = 5, start = 0, budget = 50): Attempt => new Attempt(needAll ? OP_RELEASE : OP_ACQUIRE, ['a', 'b'], 'tok', '1000', 3, start, budget, needAll, n);

test('wins at the third vote for, without waiting for the others', async () => {
  const a = make();
  a.settle(0, 2);
  a.settle(1, 2);
  assert.is(a.decision, UNDECIDED);
  a.settle(4, 2);
  assert.is(a.decision, WON);
  assert.is(await a.done, a);
  assert.is(a.pending, 2);
  assert.equal(a.votes, [FOR, FOR, PENDING, PENDING, FOR]);
});

test('loses once a quorum is impossible: against, errors and partial counts all count', async () => {
  const a = make();
  a.settle(0, 0);
  a.settle(1, new Error('down'));
  a.settle(2, 1); // one of two keys: not a vote for
  assert.is(a.decision, LOST);
  await a.done;
  assert.equal(a.votes.slice(0, 3), [AGAINST, FAILED, AGAINST]);
  assert.is(a.counts?.[2], 1);
  assert.is(a.errors?.[1]?.message, 'down');
});

test('a discounted (stalled) master is not waited for to lose: a 2–2 split among the others loses at once', async () => {
  const a = make();
  a.discount(2);
  a.settle(0, 2);
  a.settle(1, 2);
  a.settle(3, 0);
  assert.is(a.decision, UNDECIDED, 'a quorum is still possible with master 4');
  a.settle(4, 0);
  assert.is(a.decision, LOST);
  assert.is(await a.done, a);
  assert.is(a.votes[2], PENDING, 'its vote is still awaited, for stats and cleanup');
  a.settle(2, 2);
  assert.is(a.votes[2], FOR);
  assert.is(a.decision, LOST, 'a late vote changes no decision');
});

test('a discounted master that answers in time counts: it can complete the quorum', () => {
  const a = make();
  a.discount(2);
  a.discount(2); // once only
  a.settle(0, 2);
  a.settle(1, 2);
  a.settle(3, 0);
  a.settle(2, 2);
  assert.is(a.decision, WON);
});

test('stalled masters are written off early only while a minority; a quorum of flags waits for their votes; cleanup (needAll) still waits for all', () => {
  const a = make();
  for (const node of [0, 1]) a.discount(node);
  a.settle(2, new Error('refused'));
  assert.is(a.decision, LOST);
  // Three of five flagged (one stall of the whole machine flags them all): no early loss.
  const b = make();
  for (const node of [0, 1, 2]) b.discount(node);
  assert.is(b.decision, UNDECIDED);
  for (const node of [0, 1, 3]) b.settle(node, 2);
  assert.is(b.decision, WON);
  const undo = make(true);
  for (const node of [0, 1, 2]) undo.discount(node);
  undo.settle(3, 2);
  undo.settle(4, 2);
  assert.is(undo.decision, UNDECIDED);
  undo.expire();
  assert.is(undo.decision, LOST);
  assert.equal(undo.votes, [TIMEOUT, TIMEOUT, TIMEOUT, FOR, FOR]);
});

test('expire marks silent masters as timed out and decides; a late reply changes nothing', async () => {
  const a = make();
  a.settle(0, 2);
  a.settle(1, 2);
  a.expire();
  assert.is(a.decision, LOST);
  assert.equal(a.votes, [FOR, FOR, TIMEOUT, TIMEOUT, TIMEOUT]);
  a.settle(3, 2);
  assert.is(a.votes[3], TIMEOUT);
  assert.is(a.decision, LOST);
  await a.whenComplete();
});

test('release (needAll) decides only when every master answered', async () => {
  const a = make(true);
  for (let i = 0; i < 4; i++) a.settle(i, 2);
  assert.is(a.decision, UNDECIDED);
  let complete = false;
  const waiting = a.whenComplete().then(() => (complete = true));
  a.skip(4);
  assert.is(a.decision, WON);
  await waiting;
  assert.ok(complete);
});

test('release as release() sends it (needAll false): decided at a quorum for or against, not by failures', async () => {
  const release = (): Attempt => new Attempt(OP_RELEASE, ['a', 'b'], 'tok', '0', 3, 0, 50, false, 5);
  const won = release();
  won.settle(0, 2);
  won.settle(1, new Error('down'));
  won.settle(2, 2);
  assert.is(won.decision, UNDECIDED);
  won.settle(3, 2);
  assert.is(won.decision, WON, 'a quorum confirmed the delete: the fifth master is not waited for');
  assert.is(await won.done, won);
  assert.is(won.pending, 1);

  const expired = release();
  expired.settle(0, 0);
  expired.settle(1, 1); // one key of two: not all of it was ours
  expired.settle(2, 2);
  assert.is(expired.decision, UNDECIDED);
  expired.settle(3, 0);
  assert.is(expired.decision, LOST, 'a quorum said it was no longer held');

  const failing = release();
  failing.settle(0, new Error('down'));
  failing.settle(1, new Error('down'));
  failing.settle(2, new Error('down'));
  assert.is(failing.decision, UNDECIDED, 'failures alone never decide a release: acquire would have lost here');
  failing.expire();
  assert.is(failing.decision, LOST);
  assert.equal(failing.votes, [FAILED, FAILED, FAILED, TIMEOUT, TIMEOUT]);
});

test('a second reply from the same master is ignored', () => {
  const a = make();
  a.settle(0, 2);
  a.settle(0, 0);
  assert.is(a.votes[0], FOR);
  assert.is(a.pending, 4);
});

test('deadlines: run(now) scans every master with the same now; clear() expires everything', () => {
  const seen: [string, number][] = [];
  const member = (name: string, next: number): Expiring => ({
    expire: (now) => {
      seen.push([name, now]);
      return next;
    },
  });
  const d = new Deadlines([member('a', Infinity), member('b', Infinity)]);
  d.run(100);
  assert.equal(seen, [['a', 100], ['b', 100]]);
  seen.length = 0;
  d.clear();
  assert.equal(seen, [['a', Infinity], ['b', Infinity]]);
});

test('deadlines: one timer, armed for the earliest deadline reported, re-armed for what expire() answers (mocked timers)', () => {
  mock.timers.enable({ apis: ['setTimeout', 'setImmediate'] });
  // performance.now() moves with the mocked timers only: with the real clock, a loaded machine's
  // pause between arming and ticking armed the timer short and it rang a tick early.
  let clock = 1_000;
  mock.method(performance, 'now', () => clock);
  const tick = (ms: number): void => {
    clock += ms;
    mock.timers.tick(ms);
  };
  try {
    const calls: number[] = [];
    /** What the master answers: its next deadline this many ms after the scan (undefined: none). */
    let nextIn: number | undefined;
    const d = new Deadlines([{
      expire: (now) => {
        calls.push(now);
        return nextIn === undefined ? Infinity : performance.now() + nextIn;
      },
    }, {
      expire: () => Infinity, // a second master with nothing due: the earliest of the two is watched
    }]);
    const t0 = performance.now();
    d.watch(t0 + 1000);
    d.watch(t0 + 20); // earlier: re-armed
    d.watch(t0 + 500); // later: ignored
    nextIn = 40;
    tick(19);
    assert.is(calls.length, 0, 'not before the earliest deadline');
    tick(2);
    assert.is(calls.length, 1, 'rang once, for the earliest deadline, not for the later ones');
    nextIn = undefined;
    tick(39);
    assert.is(calls.length, 1);
    tick(2);
    assert.is(calls.length, 2, 'the deadline returned by expire() was watched');
    tick(10_000);
    assert.is(calls.length, 2, 'nothing left to watch: no more firings');
    d.clear();
    assert.is(calls.at(-1), Infinity, 'clear() expires everything');
  } finally {
    mock.timers.reset();
    mock.restoreAll();
  }
});

test('heap pops in key order under random pushes and pops', () => {
  const heap = new Heap<number>((n) => n);
  const mirror: number[] = [];
  for (let i = 0; i < 2000; i++) {
    if (Math.random() < 0.6 || heap.size === 0) {
      const n = Math.floor(Math.random() * 1000);
      heap.push(n);
      mirror.push(n);
    } else {
      mirror.sort((a, b) => a - b);
      assert.is(heap.pop(), mirror.shift());
    }
  }
  mirror.sort((a, b) => a - b);
  const rest: number[] = [];
  for (let n = heap.pop(); n !== undefined; n = heap.pop()) rest.push(n);
  assert.equal(rest, mirror);
});

test('heap removes items from the middle by their slot and still pops in key order', () => {
  interface Item { key: number; slot: number }
  const heap = new Heap<Item>((item) => item.key, (item, index) => { item.slot = index; });
  const live = new Set<Item>();
  for (let i = 0; i < 3000; i++) {
    const r = Math.random();
    if (r < 0.5 || live.size === 0) {
      const item = { key: Math.floor(Math.random() * 1000), slot: -1 };
      heap.push(item);
      live.add(item);
    } else if (r < 0.8) {
      const victim = [...live][Math.floor(Math.random() * live.size)]!;
      assert.is(heap.remove(victim.slot), victim);
      assert.is(victim.slot, -1);
      live.delete(victim);
    } else {
      const min = Math.min(...[...live].map((item) => item.key));
      const top = heap.pop()!;
      assert.is(top.key, min);
      live.delete(top);
    }
    assert.is(heap.size, live.size);
  }
  const keys: number[] = [];
  for (let item = heap.pop(); item !== undefined; item = heap.pop()) keys.push(item.key);
  assert.equal(keys, [...live].map((item) => item.key).sort((a, b) => a - b));
});

test('done resolves even when read after the decision; onDecided is told once', async () => {
  const a = make();
  let told = 0;
  a.onDecided = () => told++;
  for (let i = 0; i < 3; i++) a.settle(i, 2);
  assert.is(await a.done, a);
  a.settle(3, 2);
  assert.is(told, 1);
});

test.run();
