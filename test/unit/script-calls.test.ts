import '../helpers/setup.js';
import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LEAN_SCRIPT, LEAN_SHA, leanArgs } from '../../src/protocol/lean-script.js';
import { RELEASE_SHA } from '../../src/protocol/release-script.js';
import { answerAt, answersOf, callArgs, isCallReply, SCRIPTS, scriptBySha, scriptBySource, scriptLoadArgs } from '../../src/protocol/calls.js';
import { OP_ACQUIRE, OP_EXTEND, OP_FENCED_ACQUIRE, OP_IS_DONE, OP_PERMIT_RELEASE, OP_READ_RELEASE, OP_RELEASE, type OpCode } from '../../src/protocol/opcodes.js';
import { BATCH_SCRIPT, BATCH_SHA } from '../../src/protocol/batch-script.js';
import { type OpArgs } from '../../src/protocol/opcodes.js';

const test = suite('script calls');

function op(opcode: OpCode, keys: readonly string[], token: string, ttlArg: string): OpArgs {
  return { opcode, keys, token, ttlArg, extra: '' };
}

test('every script: its SHA is the sha1 of its body, found by SHA and by body; SCRIPT LOAD of the body', () => {
  assert.equal(SCRIPTS.map((s) => s.sha), [LEAN_SHA, BATCH_SHA, RELEASE_SHA]);
  for (const script of SCRIPTS) {
    assert.is(script.sha, createHash('sha1').update(script.source).digest('hex'));
    assert.is(scriptBySha(script.sha), script);
    assert.is(scriptBySource(script.source), script);
    assert.equal(scriptLoadArgs(script), ['SCRIPT', 'LOAD', script.source]);
  }
  assert.is(scriptBySha(LEAN_SHA)?.source, LEAN_SCRIPT);
  assert.is(scriptBySource(BATCH_SCRIPT)?.sha, BATCH_SHA);
  assert.is(scriptBySha('0'.repeat(40)), undefined);
});

test('lean: one kind, the shape is its code; keys, then tokens, then shape and the shared ttl, none for releases alone', () => {
  const acquires = [op(OP_ACQUIRE, ['a'], 't1', '1000'), op(OP_ACQUIRE, ["b'); redis.call('FLUSHALL"], 't2', '1000')];
  assert.equal(leanArgs(acquires, 0, 2), ['EVALSHA', LEAN_SHA, '2', 'a', "b'); redis.call('FLUSHALL", 't1', 't2', 'A', '1000'], 'keys and values only as arguments');
  const releases = [op(OP_RELEASE, ['a'], 't1', '0'), op(OP_RELEASE, ['b'], 't2', '0'), op(OP_RELEASE, ['c'], 't3', '0')];
  assert.equal(leanArgs(releases, 0, 3), ['EVALSHA', LEAN_SHA, '3', 'a', 'b', 'c', 't1', 't2', 't3', 'R']);
  assert.equal(leanArgs(releases, 1, 2), ['EVALSHA', LEAN_SHA, '1', 'b', 't2', 'R'], 'only ops[from, to)');
  assert.equal(leanArgs([op(OP_EXTEND, ['e'], 't', '300')], 0, 1), ['EVALSHA', LEAN_SHA, '1', 'e', 't', 'E', '300']);
});

test('lean: mixed kinds, one code per operation in queue order; releases need not share the ttl', () => {
  const ops = [op(OP_RELEASE, ['a'], 't1', '0'), op(OP_ACQUIRE, ['b'], 't2', '500'), op(OP_EXTEND, ['c'], 't3', '500'), op(OP_RELEASE, ['d'], 't4', '0')];
  assert.equal(leanArgs(ops, 0, 4), ['EVALSHA', LEAN_SHA, '4', 'a', 'b', 'c', 'd', 't1', 't2', 't3', 't4', 'RAER', '500']);
  assert.equal(leanArgs([ops[0]!, ops[3]!, ops[1]!], 0, 3), ['EVALSHA', LEAN_SHA, '3', 'a', 'd', 'b', 't1', 't4', 't2', 'RRA', '500']);
});

test('lean: not for a second key, another operation, or acquires and extends with different ttls', () => {
  assert.is(leanArgs([op(OP_ACQUIRE, ['a'], 't', '1000'), op(OP_ACQUIRE, ['b', 'c'], 't', '1000')], 0, 2), undefined);
  assert.is(leanArgs([op(OP_RELEASE, ['a', 'b'], 't', '0')], 0, 1), undefined);
  for (const code of [OP_FENCED_ACQUIRE, OP_IS_DONE, OP_READ_RELEASE, OP_PERMIT_RELEASE] as const) assert.is(leanArgs([op(OP_RELEASE, ['a'], 't', '0'), op(code, ['b'], 't', '0')], 0, 2), undefined, code);
  assert.is(leanArgs([op(OP_ACQUIRE, ['a'], 't', '1000'), op(OP_EXTEND, ['b'], 't', '999')], 0, 2), undefined);
  assert.is(leanArgs([op(OP_ACQUIRE, ['a'], 't', '1000'), op(OP_ACQUIRE, ['b'], 't', '999')], 0, 2), undefined);
});

test('lean: a mixed call of more than 4096 operations is not (string.byte unpacks the shape on the Lua stack); one kind has no limit', () => {
  const mixed = Array.from({ length: 4097 }, (_, i) => op(i % 2 === 0 ? OP_ACQUIRE : OP_RELEASE, [`k${i}`], 't', '1000'));
  assert.is(leanArgs(mixed, 0, 4097), undefined);
  assert.is(leanArgs(mixed, 0, 4096)?.[2], '4096');
  const one = Array.from({ length: 10_000 }, (_, i) => op(OP_RELEASE, [`k${i}`], 't', '0'));
  assert.is(leanArgs(one, 0, one.length)?.at(-1), 'R');
});

test('callArgs: LEAN_SCRIPT when the operations fit it, BATCH_SCRIPT otherwise', () => {
  const lean = [op(OP_ACQUIRE, ['a'], 't', '1000'), op(OP_RELEASE, ['b'], 'u', '0')];
  assert.equal(callArgs(lean, 0, 2), leanArgs(lean, 0, 2));
  const batch = [op(OP_ACQUIRE, ['a'], 't', '1000'), op(OP_RELEASE, ['b', 'c'], 'u', '0')];
  assert.equal(callArgs(batch, 0, 2), ['EVALSHA', BATCH_SHA, '3', 'a', 'b', 'c', 'A', 't', '1000', 'R2', 'u']);
});

test('replies: one integer per operation, or the operation count when every operation answered 1', () => {
  assert.ok(isCallReply([1, 0, 1], 3));
  assert.ok(isCallReply(3, 3));
  assert.not.ok(isCallReply(2, 3), 'an integer other than the count');
  assert.not.ok(isCallReply([1, 1], 3));
  assert.not.ok(isCallReply('OK', 1));
  assert.equal([0, 1, 2].map((i) => answerAt(3, 3, i)), [1, 1, 1]);
  assert.equal([0, 1, 2].map((i) => answerAt([1, 0, 7], 3, i)), [1, 0, 7]);
  assert.equal(answersOf(2, 2), [1, 1]);
  assert.equal(answersOf([0, 1], 2), [0, 1]);
  assert.is(answersOf(1, 2), undefined);
  assert.is(answersOf(null, 1), undefined);
});

test.run();
