import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { AGAINST, Attempt, FAILED, FOR, PENDING } from '../../src/engine/attempt.js';
import { NODE_CALL_CHANNEL, type NodeCallMessage } from '../../src/engine/channels.js';
import { Deadlines } from '../../src/engine/deadlines.js';
import { Flusher } from '../../src/engine/flusher.js';
import { Master } from '../../src/engine/master.js';
import { Stalls } from '../../src/engine/unanswered.js';
import { Gathered } from '../../src/engine/native-run.js';
import type { Batch } from '../../src/engine/coalescer.js';
import { OP_ACQUIRE, OP_EXTEND, OP_RELEASE, type OpCode } from '../../src/protocol/opcodes.js';
import { PostingFakeTransport, type FakeServer } from '../helpers/fake-transport.js';

// A run (src/engine/native-run.ts): a flush's consecutive native operations on a connection that posts
// its commands are one call to the master, each command's reply settling its own operation.
const test = suite('native runs');

const VALKEY_9: FakeServer = { setIfEq: true, delIfEq: true };

async function master(): Promise<{ node: Master; transport: PostingFakeTransport; reported: Error[] }> {
  const transport = new PostingFakeTransport(VALKEY_9);
  const reported: Error[] = [];
  const node = new Master(0, transport, false, { chunkSize: 256, coalesce: true, commands: 'auto' }, (_, error) => reported.push(error),
    { deadlines: new Deadlines([]), stalls: new Stalls(1, 1), flusher: new Flusher() }, () => undefined);
  await node.probing();
  return { node, transport, reported };
}

function op(opcode: OpCode, keys: readonly string[]): Attempt {
  return new Attempt(opcode, keys, 'tok', opcode === OP_RELEASE ? '0' : '1000', 1, performance.now(), 60_000, false, 1);
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The node calls published while `body` runs: the operations each carried. */
async function calls(body: () => Promise<void>): Promise<number[]> {
  const seen: number[] = [];
  const listener = (message: unknown): void => { seen.push((message as NodeCallMessage).operations); };
  subscribe(NODE_CALL_CHANNEL, listener);
  try {
    await body();
  } finally {
    unsubscribe(NODE_CALL_CHANNEL, listener);
  }
  return seen;
}

test('a tick\'s consecutive native operations are one call of their commands; a script between them splits the run', async () => {
  const { node, transport } = await master();
  const ops = [op(OP_ACQUIRE, ['a']), op(OP_ACQUIRE, ['b']), op(OP_RELEASE, ['c']), op(OP_EXTEND, ['e', 'f']), op(OP_RELEASE, ['g'])];
  const operations = await calls(async () => {
    for (const o of ops) node.enqueue(o);
    await tick();
    assert.equal(transport.calls, ['SET', 'SET', 'DELIFEQ', '2:E2', 'DELIFEQ'], 'commands in the order the operations came');
    assert.is(node.inflight, 5);
    for (const [i, sent] of transport.sent.entries()) sent.answer(i === 3 ? [2] : 'OK');
    await tick();
  });
  assert.equal(operations, [3, 1, 1], 'the run of three, the script call, the lone release');
  assert.equal(ops.map((o) => o.votes[0]), [FOR, FOR, FOR, FOR, FOR]);
  assert.is(node.inflight, 0);
  assert.ok(node.idle, 'nothing left unanswered');
});

test('each reply settles its own operation: nil refuses, WRONGTYPE reads as held by another, a refused command falls back to a script for its operation alone', async () => {
  const { node, transport, reported } = await master();
  const ops = [op(OP_ACQUIRE, ['a']), op(OP_ACQUIRE, ['b']), op(OP_ACQUIRE, ['c']), op(OP_RELEASE, ['d'])];
  for (const o of ops) node.enqueue(o);
  await tick();
  assert.equal(transport.calls, ['SET', 'SET', 'SET', 'DELIFEQ']);
  const [a, b, c, d] = transport.sent;
  a!.answer('OK');
  b!.answer(null);
  c!.fail(new Error('WRONGTYPE Operation against a key holding the wrong kind of value'));
  d!.fail(new Error("ERR unknown command 'DELIFEQ', with args beginning with: "));
  await tick();
  assert.equal(ops.map((o) => o.votes[0]), [FOR, AGAINST, AGAINST, PENDING], 'the release waits for its resend');
  assert.equal(transport.calls.slice(4), ['release'], 'the release alone resent, by script');
  transport.sent[4]!.answer(1);
  await tick();
  assert.is(ops[3]!.votes[0], FOR);
  assert.equal(reported.map((e) => e.name), [], 'nothing reported: WRONGTYPE is a vote, the fallback a capability change');
  assert.ok(node.idle);
});

test('another error reply fails its operation alone, reported; the same error for every command (the connection dropped) fails the run once', async () => {
  const { node, transport, reported } = await master();
  const ops = [op(OP_ACQUIRE, ['a']), op(OP_ACQUIRE, ['b'])];
  for (const o of ops) node.enqueue(o);
  await tick();
  transport.sent[0]!.answer('OK');
  transport.sent[1]!.fail(new Error('OOM command not allowed when used memory > \'maxmemory\''));
  await tick();
  assert.equal(ops.map((o) => o.votes[0]), [FOR, FAILED]);
  assert.equal(reported.map((e) => e.message.slice(0, 3)), ['OOM']);
  const dropped = [op(OP_ACQUIRE, ['x']), op(OP_ACQUIRE, ['y']), op(OP_ACQUIRE, ['z'])];
  for (const o of dropped) node.enqueue(o);
  await tick();
  const error = new Error('Socket closed unexpectedly');
  for (const sent of transport.sent.slice(2)) sent.fail(error);
  await tick();
  assert.equal(dropped.map((o) => o.votes[0]), [FAILED, FAILED, FAILED]);
  assert.equal(reported.length, 2, 'the drop reported once for the run');
  assert.ok(node.idle);
});

test('Gathered: replies in their places whatever order they come in; one error for all is the run failing', () => {
  const heard: unknown[] = [];
  const sink = { replied: (_: Batch, reply: unknown) => heard.push(reply), failed: (_: Batch, error: Error) => heard.push(error) };
  const batch = { ops: [1, 2, 3] } as unknown as Batch;
  const gathered = new Gathered(sink, batch);
  gathered.replied(2, 'c');
  const no = new Error('no');
  gathered.failed(0, no);
  assert.equal(heard, []);
  gathered.replied(1, 'b');
  assert.equal(heard, [[no, 'b', 'c']]);
  const down = new Error('down');
  const all = new Gathered(sink, batch);
  for (const i of [0, 1, 2]) all.failed(i, down);
  assert.is(heard[1], down);
});

test.run();
