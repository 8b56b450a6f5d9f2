import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LockAbortedError, OverloadedError, RedlockClosedError } from '../../src/index.js';
import { AdmissionWindow, kInitialWindowKeys, kMaxWindowKeys, kMinWindowKeys, Queued } from '../../src/admission/window.js';

const test = suite('admission window');
const none = (): [] => [];

test('admits at once up to the limit, then queues in arrival order and admits as room frees', async () => {
  const w = new AdmissionWindow();
  for (let i = 0; i < kInitialWindowKeys; i++) assert.ok(w.tryEnter(1));
  assert.not.ok(w.tryEnter(1));
  const order: number[] = [];
  const waiting = [1, 2, 3].map((i) => w.enter(1, Infinity, undefined, none).then(() => order.push(i)));
  assert.is(w.queued, 3);
  // Nobody jumps the queue, even when a slot is free.
  w.leave(1, 1, 250);
  assert.not.ok(w.tryEnter(1));
  w.leave(2, 1, 250);
  await Promise.all(waiting);
  assert.equal(order, [1, 2, 3]);
  assert.is(w.queued, 0);
});

test('releases are admitted ahead of queued acquisitions, within the limit; acquisitions wait while they do', async () => {
  const w = new AdmissionWindow();
  for (let i = 0; i < kInitialWindowKeys; i++) assert.ok(w.tryEnter(1));
  const order: string[] = [];
  const acquisition = w.enter(1, Infinity, undefined, none).then(() => order.push('acquire'));
  assert.not.ok(w.tryEnterFirst(1), 'a full window admits no release either');
  const release = w.enterFirst(1).then(() => order.push('release'));
  assert.not.ok(w.tryEnter(1), 'an acquisition does not pass a waiting release');
  w.leave(1, 50, 250); // neither grows nor cuts the limit
  await release;
  assert.equal(order, ['release']);
  w.leave(1, 50, 250); // neither grows nor cuts the limit
  await acquisition;
  assert.equal(order, ['release', 'acquire']);
  // With room, a release goes at once even past a queue of acquisitions.
  const w2 = new AdmissionWindow();
  for (let i = 0; i < kInitialWindowKeys; i++) assert.ok(w2.tryEnter(1));
  void w2.enter(2, Infinity, undefined, none);
  w2.leave(1, 50, 250);
  assert.ok(w2.tryEnterFirst(1));
});

test('thousands of waiting releases are admitted in arrival order, past compaction, and close() rejects the rest', async () => {
  const w = new AdmissionWindow();
  for (let i = 0; i < kInitialWindowKeys; i++) assert.ok(w.tryEnter(1));
  const order: number[] = [];
  const refused: number[] = [];
  const waiting = Array.from({ length: 5000 }, (_, i) => w.enterFirst(1).then(() => order.push(i), () => refused.push(i)));
  const acquisition = w.enter(1, Infinity, undefined, none).then(() => order.push(-1), () => refused.push(-1));
  // One room freed at a time, as decided releases free it: each admits the next waiting release.
  for (let i = 0; i < 4000; i++) {
    w.leave(1, 50, 250);
    await Promise.resolve();
  }
  assert.not.ok(w.tryEnterFirst(1), 'a release does not pass the releases still waiting');
  w.close(new RedlockClosedError());
  await Promise.all([...waiting, acquisition]);
  assert.equal(order, Array.from({ length: 4000 }, (_, i) => i));
  assert.equal(refused, [...Array.from({ length: 1000 }, (_, i) => 4000 + i), -1]);
  w.leave(w.inflight, 50, 250);
  assert.ok(w.tryEnterFirst(1), 'nothing waiting and room: a release enters at once');
});

test('a window nobody fills (the uncontended path) does not grow', () => {
  const w = new AdmissionWindow();
  for (let i = 0; i < 100; i++) {
    assert.ok(w.tryEnter(1));
    w.leave(1, 1, 250);
  }
  assert.is(w.limit, kInitialWindowKeys);
});

test('an attempt larger than the whole window is admitted alone', () => {
  const w = new AdmissionWindow();
  assert.ok(w.tryEnter(kInitialWindowKeys * 4));
  assert.not.ok(w.tryEnter(1));
});

test('slow start: the limit doubles per round trip while attempts are decided fast, halves when one eats a quarter of its budget', () => {
  const w = new AdmissionWindow();
  for (let round = 0; round < 3; round++) {
    const limit = w.limit;
    for (let i = 0; i < limit; i++) assert.ok(w.tryEnter(1));
    assert.not.ok(w.tryEnter(1)); // demand beyond the window: it may grow
    for (let i = 0; i < limit; i++) w.leave(1, 5, 250);
    assert.is(w.limit, limit * 2);
  }
  const before = w.limit;
  for (let i = 0; i < before; i++) w.tryEnter(1);
  w.leave(1, 100, 250);
  assert.is(w.limit, before / 2);
  // The rest of that round trip's late answers do not cut again.
  w.leave(1, 100, 250);
  w.leave(1, 100, 250);
  assert.is(w.limit, before / 2);
  assert.ok(w.limit >= kMinWindowKeys && w.limit <= kMaxWindowKeys);
});

test('fails fast with OverloadedError, nothing admitted, when the turn would come after the deadline', async () => {
  const w = new AdmissionWindow();
  for (let i = 0; i < kInitialWindowKeys; i++) w.tryEnter(1);
  w.leave(1, 200, 250); // decisions take 200 ms
  w.tryEnter(1);
  const queued = Array.from({ length: 1000 }, () => w.enter(1, Infinity, undefined, none));
  const error = await w.enter(1, performance.now() + 100, undefined, none).then(() => undefined, (e: unknown) => e);
  assert.instance(error, OverloadedError);
  const overloaded = error as OverloadedError;
  assert.is(overloaded.code, 'ERR_PIPELOCK_OVERLOADED');
  assert.is(overloaded.queueDepth, 1000);
  assert.ok(overloaded.waitMs > 100, `wait ${overloaded.waitMs}`);
  assert.ok(overloaded.budgetMs <= 100);
  assert.is(w.queued, 1000);
  w.close(new RedlockClosedError());
  for (const q of queued) assert.instance(await q.then(() => undefined, (e: unknown) => e), RedlockClosedError);
});

test('a signal that aborts while waiting leaves the queue with LockAbortedError; a deadline passed in the queue fails there', async () => {
  const w = new AdmissionWindow();
  for (let i = 0; i < kInitialWindowKeys; i++) w.tryEnter(1);
  const controller = new AbortController();
  const aborted = w.enter(1, Infinity, controller.signal, none).then(() => undefined, (e: unknown) => e);
  const late = w.enter(1, performance.now() + 1, undefined, none).then(() => undefined, (e: unknown) => e);
  const next = w.enter(1, Infinity, undefined, none);
  controller.abort(new Error('caller gave up'));
  const error = await aborted;
  assert.instance(error, LockAbortedError);
  assert.is((error as LockAbortedError).cause instanceof Error && ((error as LockAbortedError).cause as Error).message, 'caller gave up');
  assert.is(w.queued, 2);
  await new Promise((resolve) => setTimeout(resolve, 5));
  w.leave(2, 1, 250);
  assert.instance(await late, OverloadedError);
  await next;
  assert.is(w.queued, 0);
});

/** An entry that gives its room back as soon as it is admitted (a call that finds it must wait elsewhere first). */
class Declines extends Queued {
  admitted = false;
  constructor(readonly window: AdmissionWindow) {
    super(1, Infinity);
  }

  admit(): void {
    this.admitted = true;
    this.window.cancel(this.keys);
  }

  refuse(): void {
    throw new Error('not refused here');
  }
}

test('an admitted entry that gives its room back at once: whoever fits is admitted, however long the run of such entries', async () => {
  const w = new AdmissionWindow();
  for (let i = 0; i < kInitialWindowKeys; i++) assert.ok(w.tryEnter(1));
  // Each cancel pumps from inside the pump: nested, 100,000 of them overflowed the stack.
  const declining = Array.from({ length: 100_000 }, () => new Declines(w));
  for (const entry of declining) w.queue(entry, undefined, none);
  const last = w.enter(1, Infinity, undefined, none);
  w.leave(1, 1, 250);
  await last;
  assert.ok(declining.every((entry) => entry.admitted));
  assert.is(w.queued, 0);
  assert.is(w.inflight, kInitialWindowKeys);
});

test.run();
