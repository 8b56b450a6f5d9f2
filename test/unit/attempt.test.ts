import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AGAINST, Attempt, FAILED, FOR, PENDING, TIMEOUT } from '../../src/attempt.js';
import { Deadlines } from '../../src/deadlines.js';
import { Heap } from '../../src/heap.js';
import { LOST, UNDECIDED, WON } from '../../src/quorum.js';
import { OP_ACQUIRE, OP_RELEASE } from '../../src/scripts.js';

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

test('discounting alone decides when too many masters are stalled; cleanup (needAll) still waits for all', () => {
  const a = make();
  for (const node of [0, 1, 2]) a.discount(node);
  assert.is(a.decision, LOST);
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

test('a second reply from the same master is ignored', () => {
  const a = make();
  a.settle(0, 2);
  a.settle(0, 0);
  assert.is(a.votes[0], FOR);
  assert.is(a.pending, 4);
});

test('deadlines: one timer, armed for the earliest deadline a master reports, re-armed from expire()', async () => {
  const calls: number[] = [];
  let next = Infinity;
  const d = new Deadlines((now) => {
    calls.push(now);
    return next;
  });
  const soon = performance.now() + 20;
  d.watch(soon + 1000);
  d.watch(soon); // earlier: re-armed
  d.watch(soon + 500); // later: ignored
  next = performance.now() + 40;
  await new Promise((resolve) => setTimeout(resolve, 35));
  assert.is(calls.length, 1);
  // Node's timers run on libuv's millisecond loop clock, which may lag performance.now(): a timer
  // can ring up to 1 ms early by it (Alarm re-arms for the rest). It rang for the earliest deadline,
  // not for the later ones.
  assert.ok(calls[0]! >= soon - 1 && calls[0]! < soon + 500, `rang at ${calls[0]! - soon} ms from the earliest deadline`);
  next = Infinity;
  await new Promise((resolve) => setTimeout(resolve, 40));
  assert.is(calls.length, 2, 'the deadline returned by expire() was watched');
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.is(calls.length, 2, 'nothing left to watch: no more firings');
  d.clear();
  assert.is(calls.at(-1), Infinity, 'clear() expires everything');
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
