import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Attempt } from '../../src/attempt.js';
import type { RedisClient } from '../../src/client.js';
import { Deadlines } from '../../src/deadlines.js';
import { Node } from '../../src/node.js';
import { WON } from '../../src/quorum.js';
import { BATCH_SHA, OP_ACQUIRE, OP_EXTEND, OP_RELEASE, type OpCode } from '../../src/scripts.js';
import type { Transport } from '../../src/transport.js';

/** A Transport that records what the master sends and answers when the test says so. */
class FakeTransport implements Transport {
  readonly name = 'fake:1';
  readonly client = {} as never;
  readonly keyPrefix = '';
  readonly isOpen = true;
  readonly isReady = true;
  readonly sent: { args: readonly string[]; answer: (reply: unknown) => void }[] = [];

  send(args: readonly string[]): Promise<unknown> {
    // The SCRIPT LOAD a ready master sends at once answers nothing here: only the calls count.
    if (args[0] === 'SCRIPT') return new Promise(() => undefined);
    return new Promise((resolve) => this.sent.push({ args, answer: resolve }));
  }

  onReady(): () => void {
    return () => undefined;
  }

  onError(): () => void {
    return () => undefined;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  /** Words of each call so far: 'SET', or the EVALSHA's key count and operation codes. */
  get calls(): string[] {
    return this.sent.map(({ args }) => (args[0] === 'SET' ? 'SET' : `${args[2]}:${args.slice(3 + Number(args[2])).filter((a) => /^[A-Z]\d*$/.test(a)).join(',')}`));
  }
}

const test = suite('coalescer');

function master(chunkSize = 256, coalesce = true): { node: Node; transport: FakeTransport } {
  const transport = new FakeTransport();
  const node = new Node(0, transport, {} as RedisClient, false, chunkSize, coalesce, () => undefined, new Deadlines([]));
  return { node, transport };
}

function op(opcode: OpCode, keys: readonly string[]): Attempt {
  return new Attempt(opcode, keys, 'tok', '1000', 1, performance.now(), 60_000, false, 1);
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
  assert.equal(transport.calls, ['3:E2,E', '3:E,E2', '4:E4', '1:R']);
  transport.sent.length = 0;
  node.enqueue(op(OP_EXTEND, ['g', 'h', 'i', 'j'])); // first in its queue
  node.enqueue(op(OP_RELEASE, ['k']));
  await tick();
  assert.equal(transport.calls, ['4:E4', '1:R'], 'no empty call before an oversized first operation');
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
  assert.equal(transport.calls, ['SET', '2:A2', '1:E', '2:A,A']);
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

test('calls in flight: the flush waits for setImmediate and gathers what the microtasks of this phase queue', async () => {
  const { node, transport } = master();
  node.enqueue(op(OP_ACQUIRE, ['a']));
  await Promise.resolve();
  assert.is(node.inflight, 1);
  node.enqueue(op(OP_EXTEND, ['b']));
  await Promise.resolve();
  node.enqueue(op(OP_EXTEND, ['c'])); // a continuation one microtask later
  await Promise.resolve();
  assert.is(transport.sent.length, 1, 'not flushed in a microtask while a call is in flight');
  await tick();
  assert.equal(transport.calls, ['SET', '2:E,E']);
});

test.run();
