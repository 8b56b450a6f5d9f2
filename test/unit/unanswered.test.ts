import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Attempt, FAILED, FOR, PENDING, TIMEOUT } from '../../src/engine/attempt.js';
import type { Batch } from '../../src/engine/coalescer.js';
import { Deadlines } from '../../src/engine/deadlines.js';
import { NodeStalledError } from '../../src/errors.js';
import { Master } from '../../src/engine/master.js';
import { Flusher } from '../../src/engine/flusher.js';
import { mayWriteOff } from '../../src/engine/quorum.js';
import { OP_ACQUIRE, OP_RELEASE } from '../../src/protocol/opcodes.js';
import { FakeTransport } from '../helpers/fake-transport.js';
import { Stalls, Unanswered } from '../../src/engine/unanswered.js';

const test = suite('unanswered: stalled masters');

/** An acquisition over five masters (quorum 3), sent at `start` with a 50 ms budget. */
const op = (start: number): Attempt => new Attempt(OP_ACQUIRE, ['k'], 'tok', '1000', 3, start, 50, false, 5);

let seq = 0;
function batch(...ops: Attempt[]): Batch {
  let deadline = Infinity;
  for (const o of ops) deadline = Math.min(deadline, o.deadline);
  return { seq: seq++, deadline, ops, args: [], native: false, replayed: false, connection: 0, slot: -1, written: 0 };
}

/** Master 2 of five, its batch `first` sent and left unanswered past its budget: stalled. */
function stalledMaster(stalls = new Stalls(5, 3)): { u: Unanswered; first: Batch; stalls: Stalls; deadlines: Deadlines } {
  const deadlines = new Deadlines([]);
  const u = new Unanswered(2, deadlines, stalls);
  const first = batch(op(0));
  u.add(first);
  u.expire(49);
  assert.not.ok(u.stalled, 'within its budget: not stalled');
  u.expire(50);
  assert.ok(u.stalled, 'unanswered past its budget: stalled');
  return { u, first, stalls, deadlines };
}

test('mayWriteOff: stalled masters are written off only while they are a minority (n=5: up to 2; n=3: 1; n=1: none)', () => {
  assert.equal([0, 1, 2, 3, 4, 5].map((stalled) => mayWriteOff(stalled, 5, 3)), [true, true, true, false, false, false]);
  assert.equal([0, 1, 2, 3].map((stalled) => mayWriteOff(stalled, 3, 2)), [true, true, false, false]);
  assert.equal([0, 1].map((stalled) => mayWriteOff(stalled, 1, 1)), [true, false]);
});

test('a stalled master admits one operation at a time (the probe) until the probe\'s call is answered; an answer in time ends the stall', () => {
  const { u, first, stalls, deadlines } = stalledMaster();
  assert.is(stalls.count, 1);
  const probe = op(100);
  assert.ok(u.admits(probe), 'the first operation after the stall began is the probe');
  assert.not.ok(u.admits(op(100)), 'not another while the probe is out');
  const probed = batch(probe);
  u.add(probed);
  u.answered(first, 100);
  assert.ok(u.stalled, 'the call that timed out, answered late, does not end the stall');
  assert.not.ok(u.admits(op(100)), 'nor does it free the probe');
  u.expire(150);
  assert.is(probe.votes[2], TIMEOUT);
  u.answered(probed, 150);
  assert.ok(u.stalled, 'the probe answered late: still stalled');
  const next = op(200);
  assert.ok(u.admits(next), 'but the next operation probes again');
  assert.not.ok(u.admits(op(200)));
  const again = batch(next);
  u.add(again);
  assert.is(next.votes[2], PENDING);
  u.answered(again, 200);
  assert.not.ok(u.stalled, 'answered in time: the stall is over');
  assert.is(stalls.count, 0);
  for (let i = 0; i < 3; i++) assert.ok(u.admits(op(200)), 'everything is sent again');
  deadlines.clear();
});

test('a master answering a backlog in order is not timed out: a call\'s budget counts from the reply before it; a silent one still is', () => {
  const deadlines = new Deadlines([]);
  const u = new Unanswered(2, deadlines, new Stalls(5, 3));
  const ops = [op(0), op(0), op(0)];
  const calls = ops.map((o) => batch(o));
  for (const call of calls) u.add(call);
  u.answered(calls[0]!, 40);
  ops[0]!.settle(2, 1);
  u.expire(60);
  assert.equal([ops[1]!.votes[2], ops[2]!.votes[2]], [PENDING, PENDING], 'past the send\'s budget, but the master answered 20 ms ago');
  u.answered(calls[1]!, 80);
  ops[1]!.settle(2, 1);
  assert.is(u.expire(100), 130, 'the last call is due a budget after the reply before it');
  assert.not.ok(u.stalled);
  u.expire(130);
  assert.is(ops[2]!.votes[2], TIMEOUT, 'nothing answered for a budget: timed out');
  assert.is(ops[2]!.votes[0], PENDING, 'on this master only: the others count their own budgets');
  assert.ok(u.stalled);
  deadlines.clear();
});

test('a call\'s budget counts from when it was written, not only from its flush: the client\'s own delay is not the master\'s', async () => {
  const deadlines = new Deadlines([]);
  const u = new Unanswered(2, deadlines, new Stalls(5, 3));
  const late = op(0);
  const call = batch(late);
  u.add(call);
  await new Promise((resolve) => setImmediate(resolve));
  assert.ok(call.written > 50, 'stamped in the check phase after it was handed over');
  u.expire(60);
  assert.is(late.votes[2], PENDING, 'past its flush\'s budget, but written just now');
  u.expire(call.written + 50);
  assert.is(late.votes[2], TIMEOUT, 'a budget after it was written: timed out');
  deadlines.clear();
});

test('a reply to a later call gives an earlier one no more time (replies out of order: a replayed call)', () => {
  const deadlines = new Deadlines([]);
  const u = new Unanswered(2, deadlines, new Stalls(5, 3));
  const early = op(0);
  const first = batch(early);
  const later = batch(op(0));
  u.add(first);
  u.add(later);
  u.answered(later, 40);
  u.expire(50);
  assert.is(early.votes[2], TIMEOUT);
  deadlines.clear();
});

test('a failed probe frees the slot for the next one; a new connection ends the stall', () => {
  const { u, stalls, deadlines } = stalledMaster();
  const probe = op(100);
  assert.ok(u.admits(probe));
  const probed = batch(probe);
  u.add(probed);
  assert.not.ok(u.admits(op(100)));
  u.failed(probed);
  assert.ok(u.stalled);
  assert.ok(u.admits(op(100)), 'its call failed: the next operation probes');
  u.reconnected();
  assert.not.ok(u.stalled);
  assert.is(stalls.count, 0);
  assert.ok(u.admits(op(100)) && u.admits(op(100)));
  deadlines.clear();
});

test('while a majority of masters is stalled (the client itself paused), every stalled master admits everything; back to a minority, one probe each', () => {
  const stalls = new Stalls(5, 3);
  const masters = [stalledMaster(stalls), stalledMaster(stalls), stalledMaster(stalls)];
  assert.is(stalls.count, 3);
  for (const { u } of masters) for (let i = 0; i < 3; i++) assert.ok(u.admits(op(100)), 'sent to and waited for, as if unflagged');
  masters[0]!.u.reconnected();
  assert.is(stalls.count, 2);
  for (const { u } of masters.slice(1)) {
    assert.ok(u.admits(op(100)), 'the probe');
    assert.not.ok(u.admits(op(100)), 'written off again');
  }
  for (const { deadlines } of masters) deadlines.clear();
});

/** A transport whose master answers only when the test says so (stalled until then): it records each call. */
/** A master's connection that answers only when the test says so (the probes at connect never). */
class SilentTransport extends FakeTransport {
  override readonly name = 'silent:1';

  get count(): number {
    return this.sent.length;
  }
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Master 0 of five over a SilentTransport, with its own deadline timer. */
function silentMaster(): { node: Master; transport: SilentTransport; deadlines: Deadlines; reported: Error[] } {
  const members: Master[] = [];
  const deadlines = new Deadlines(members);
  const transport = new SilentTransport();
  const reported: Error[] = [];
  const node = new Master(0, transport, false, { chunkSize: 256, coalesce: true, commands: 'auto' }, (_, error) => reported.push(error), { deadlines, stalls: new Stalls(5, 3), flusher: new Flusher() }, () => undefined);
  members.push(node);
  return { node, transport, deadlines, reported };
}

test('a stalled master (a minority) is sent one probe; every other operation is settled at once with one NodeStalledError, reported once', async () => {
  const { node, transport, deadlines, reported } = silentMaster();
  const first = op(performance.now());
  node.enqueue(first);
  await tick();
  assert.is(transport.count, 1);
  deadlines.run(first.deadline);
  assert.is(first.votes[0], TIMEOUT);
  const ops = Array.from({ length: 100 }, () => op(performance.now()));
  for (const o of ops) node.enqueue(o);
  await tick();
  assert.is(transport.count, 2, 'the first call and one probe, for 101 operations');
  assert.is(ops[0]!.votes[0], PENDING, 'the probe waits for its answer');
  assert.is(ops[0]!.votesStalled, 1, 'without being waited for');
  const shed = ops.slice(1);
  assert.ok(shed.every((o) => o.votes[0] === FAILED), 'the others are not sent: their vote is missing at once');
  const error = shed[0]!.errors![0]!;
  if (!(error instanceof NodeStalledError)) throw new Error(`expected a NodeStalledError, got ${String(error)}`);
  assert.ok(shed.every((o) => o.errors![0] === error), 'one error for the stall, shared');
  assert.is(error.master, 'silent:1');
  assert.is(error.message, 'master silent:1 is stalled: a call to it went unanswered past its time budget (nodeTimeout), so nothing is sent to it but one probe until it answers in time');
  assert.equal(reported, [error], 'reported once per stall');
  assert.not.ok(node.idle, 'the probe is awaited within its budget');
  // A budget after its call was written (Deadlines.stamp), which is after the probe was made.
  deadlines.run(performance.now() + 50);
  assert.ok(node.idle, 'and not past it: quit() does not wait for a stalled master');
  deadlines.clear();
});

/** An operation over five masters under `token`, made now with a 50 ms budget. */
const opOf = (opcode: typeof OP_ACQUIRE | typeof OP_RELEASE, key: string, token: string): Attempt => new Attempt(opcode, [key], token, opcode === OP_RELEASE ? '0' : '1000', 3, performance.now(), 50, false, 5);

test('what a stalled master may hold is deleted: a release behind its unanswered acquisition is sent, a late grant is undone, and the releases not sent go once a probe is answered in time', async () => {
  const { node, transport, deadlines } = silentMaster();
  const sentBefore = opOf(OP_ACQUIRE, 'a', 'tok-a');
  node.enqueue(sentBefore);
  await tick();
  deadlines.run(sentBefore.deadline);
  assert.is(sentBefore.votes[0], TIMEOUT, 'stalled');
  node.enqueue(opOf(OP_RELEASE, 'a', 'tok-a'));
  const probe = opOf(OP_ACQUIRE, 'p', 'tok-p');
  node.enqueue(probe);
  const notSent = opOf(OP_RELEASE, 'x', 'tok-x');
  node.enqueue(notSent);
  await tick();
  assert.is(notSent.votes[0], FAILED);
  const tokens = (): string[] => transport.sent.map(({ args }) => args.filter((a) => a.startsWith('tok-')).join(','));
  assert.equal(tokens(), ['tok-a', 'tok-a,tok-p'], 'the release of an unanswered acquisition goes behind it (beside the probe); the other release does not');
  transport.sent[0]!.answer('OK');
  // The reply's handler runs in a microtask; the undo it queues goes out in the next check phase.
  await tick();
  await tick();
  assert.equal(tokens().slice(2), ['tok-a'], 'the acquisition granted past its budget is undone, owner-checked');
  assert.is(transport.sent[2]!.args[0], 'EVALSHA');
  transport.sent[1]!.answer([1, 1]);
  await tick();
  await tick();
  assert.is(probe.votes[0], FOR, 'the probe answered in time: the stall is over');
  assert.equal(tokens().slice(3), ['tok-x'], 'and the release that was not sent goes now');
  deadlines.clear();
});

test('a master that answers every call just past its budget: the stall keeps no more tokens than calls out (it grew by one per probe)', () => {
  const { u, first } = stalledMaster();
  u.answered(first, 60);
  let now = 100;
  for (let i = 0; i < 1000; i++) {
    const probe = new Attempt(OP_ACQUIRE, ['k'], `tok${i}`, '1000', 3, now, 50, false, 5);
    assert.ok(u.admits(probe), `probe ${i} admitted`);
    const call = batch(probe);
    u.add(call);
    now += 60;
    u.expire(now);
    assert.is(probe.votes[2], TIMEOUT);
    u.answered(call, now);
    assert.ok(u.stalled, 'answered late: still stalled');
  }
  assert.ok(u.tokensKept <= 1, `${u.tokensKept} tokens kept after 1,000 late answers`);
});

test.run();
