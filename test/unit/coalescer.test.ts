import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AGAINST, Attempt, FAILED, FOR } from '../../src/engine/attempt.js';
import { Deadlines } from '../../src/engine/deadlines.js';
import { Master } from '../../src/engine/master.js';
import { Flusher } from '../../src/engine/flusher.js';
import { WON } from '../../src/engine/quorum.js';
import { Stalls } from '../../src/engine/unanswered.js';
import { UnexpectedReplyError } from '../../src/errors.js';
import { LEAN_SHA } from '../../src/protocol/lean-script.js';
import { OP_ACQUIRE, OP_EXTEND, OP_RELEASE, type OpCode } from '../../src/protocol/opcodes.js';
import { BATCH_SHA } from '../../src/protocol/batch-script.js';
import { FakeTransport } from '../helpers/fake-transport.js';

const test = suite('coalescer');

function master(chunkSize = 256, coalesce = true): { node: Master; transport: FakeTransport } {
  const transport = new FakeTransport();
  const node = new Master(0, transport, false, { chunkSize, coalesce, commands: 'auto' }, () => undefined, { deadlines: new Deadlines([]), stalls: new Stalls(1, 1), flusher: new Flusher() }, () => undefined);
  return { node, transport };
}

function op(opcode: OpCode, keys: readonly string[], ttlArg = '1000'): Attempt {
  return new Attempt(opcode, keys, 'tok', ttlArg, 1, performance.now(), 60_000, false, 1);
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('every operation queued in one tick goes out as one EVALSHA, keys and operations in queue order', async () => {
  const { node, transport } = master();
  node.enqueue(op(OP_ACQUIRE, ['a']));
  node.enqueue(op(OP_EXTEND, ['b', 'c']));
  node.enqueue(op(OP_RELEASE, ['d']));
  await tick();
  assert.equal(transport.calls, ['4:A,E2,R']);
  assert.equal(transport.sent[0]!.args.slice(0, 7), ['EVALSHA', BATCH_SHA, '4', 'a', 'b', 'c', 'd']);
});

test('chunks of at most chunkSize keys; an operation is never split, one larger than a chunk goes alone', async () => {
  const { node, transport } = master(3);
  node.enqueue(op(OP_EXTEND, ['a', 'b'])); // 2
  node.enqueue(op(OP_EXTEND, ['c'])); // 3: exactly a chunk
  node.enqueue(op(OP_EXTEND, ['d'])); // would make 4: next chunk
  node.enqueue(op(OP_EXTEND, ['e', 'f'])); // 3 again
  node.enqueue(op(OP_EXTEND, ['g', 'h', 'i', 'j'])); // larger than a chunk: alone
  node.enqueue(op(OP_RELEASE, ['k']));
  await tick();
  assert.equal(transport.calls, ['3:E2,E', '3:E,E2', '4:E4', 'release']);
  transport.sent.length = 0;
  node.enqueue(op(OP_EXTEND, ['g', 'h', 'i', 'j'])); // first in its queue
  node.enqueue(op(OP_RELEASE, ['k']));
  await tick();
  assert.equal(transport.calls, ['4:E4', 'release'], 'no empty call before an oversized first operation');
});

test('a lone single-key acquisition is a plain SET NX PX; any company, a second key or another operation makes it a script call', async () => {
  const { node, transport } = master();
  const lone = op(OP_ACQUIRE, ['a']);
  node.enqueue(lone);
  await tick();
  assert.equal(transport.sent[0]!.args, ['SET', 'a', 'tok', 'NX', 'PX', '1000']);
  transport.sent[0]!.answer('OK');
  await lone.done;
  assert.is(lone.decision, WON, "'OK' is a vote for");
  node.enqueue(op(OP_ACQUIRE, ['b', 'c']));
  await tick();
  node.enqueue(op(OP_EXTEND, ['d']));
  await tick();
  node.enqueue(op(OP_ACQUIRE, ['e']));
  node.enqueue(op(OP_ACQUIRE, ['f']));
  await tick();
  assert.equal(transport.calls, ['SET', '2:A2', 'lean 1:E', 'lean 2:A']);
});

test('single-key acquire, extend and release sharing a ttl go as one LEAN_SCRIPT call in queue order; any other operation, a second key or a second ttl makes it BATCH_SCRIPT', async () => {
  const { node, transport } = master();
  node.enqueue(op(OP_RELEASE, ['a']));
  node.enqueue(op(OP_ACQUIRE, ['b']));
  node.enqueue(op(OP_EXTEND, ['c']));
  node.enqueue(op(OP_ACQUIRE, ['d']));
  await tick();
  node.enqueue(op(OP_ACQUIRE, ['e']));
  node.enqueue(op(OP_ACQUIRE, ['f', 'g']));
  await tick();
  node.enqueue(op(OP_ACQUIRE, ['h']));
  node.enqueue(op(OP_EXTEND, ['i'], '2000'));
  await tick();
  node.enqueue(op(OP_RELEASE, ['j'], '0'));
  node.enqueue(op(OP_EXTEND, ['k'], '2000'));
  await tick();
  assert.equal(transport.calls, ['lean 4:RAEA', '3:A,A2', '2:A,E', 'lean 2:RE'], "a release's ttl is not one the others must share");
  assert.equal(transport.sent[0]!.args, ['EVALSHA', LEAN_SHA, '4', 'a', 'b', 'c', 'd', 'tok', 'tok', 'tok', 'tok', 'RAEA', '1000']);
});

test('chunks choose their script each: a chunk of single-key operations is LEAN_SCRIPT beside a chunk that is not', async () => {
  const { node, transport } = master(2);
  node.enqueue(op(OP_ACQUIRE, ['a']));
  node.enqueue(op(OP_ACQUIRE, ['b']));
  node.enqueue(op(OP_EXTEND, ['c', 'd']));
  node.enqueue(op(OP_RELEASE, ['e']));
  node.enqueue(op(OP_RELEASE, ['f']));
  await tick();
  assert.equal(transport.calls, ['lean 2:A', '2:E2', 'lean 2:R']);
});

test("LEAN_SCRIPT's replies: the integer n votes for with every operation, an array per operation, anything else is an unexpected reply", async () => {
  const { node, transport } = master();
  const ops = [op(OP_ACQUIRE, ['a']), op(OP_ACQUIRE, ['b'])];
  for (const o of ops) node.enqueue(o);
  await tick();
  transport.sent[0]!.answer(2);
  await Promise.all(ops.map((o) => o.done));
  assert.equal(ops.map((o) => o.votes[0]), [FOR, FOR]);

  const mixed = [op(OP_ACQUIRE, ['c']), op(OP_RELEASE, ['d'])];
  for (const o of mixed) node.enqueue(o);
  await tick();
  transport.sent[1]!.answer([0, 1]);
  await Promise.all(mixed.map((o) => o.done));
  assert.equal(mixed.map((o) => o.votes[0]), [AGAINST, FOR]);

  const odd = [op(OP_EXTEND, ['e']), op(OP_EXTEND, ['f'])];
  for (const o of odd) node.enqueue(o);
  await tick();
  transport.sent[2]!.answer(1);
  await Promise.all(odd.map((o) => o.done));
  assert.equal(odd.map((o) => o.votes[0]), [FAILED, FAILED], 'an integer that is not the operation count answers nothing');
  assert.instance(odd[0]!.errors?.[0], UnexpectedReplyError);
});

test('coalesce: false sends one call per operation, a lone-key acquisition still as SET NX', async () => {
  const { node, transport } = master(256, false);
  node.enqueue(op(OP_ACQUIRE, ['a']));
  node.enqueue(op(OP_ACQUIRE, ['b']));
  node.enqueue(op(OP_EXTEND, ['c', 'd']));
  await tick();
  assert.equal(transport.calls, ['SET', 'SET', '2:E2']);
});

test('nothing in flight: flushed in a microtask, before the event loop turns', async () => {
  const { node, transport } = master();
  node.enqueue(op(OP_ACQUIRE, ['a']));
  assert.is(transport.sent.length, 0, 'not sent synchronously: the tick may queue more');
  await Promise.resolve();
  assert.is(transport.sent.length, 1);
});

test('a few operations in flight: still a microtask; more than kGatherAbove (4): the flush waits for setImmediate and gathers what the microtasks of this phase queue', async () => {
  const { node, transport } = master();
  node.enqueue(op(OP_ACQUIRE, ['a']));
  await Promise.resolve();
  assert.is(node.inflight, 1);
  node.enqueue(op(OP_EXTEND, ['b']));
  await Promise.resolve();
  assert.is(transport.sent.length, 2, 'one operation out: flushed in a microtask');
  for (const key of ['c', 'd', 'e', 'f']) node.enqueue(op(OP_EXTEND, [key]));
  await Promise.resolve();
  assert.is(node.inflight, 6);
  node.enqueue(op(OP_EXTEND, ['g']));
  await Promise.resolve();
  node.enqueue(op(OP_EXTEND, ['h'])); // a continuation one microtask later
  await Promise.resolve();
  assert.is(transport.sent.length, 3, 'not flushed in a microtask while six operations are out');
  await tick();
  assert.equal(transport.calls, ['SET', 'lean 1:E', 'lean 4:E', 'lean 2:E']);
});

test.run();
