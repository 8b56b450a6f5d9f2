import '../helpers/setup.js';
import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { OP_ACQUIRE, OP_EXTEND, OP_FENCED_ACQUIRE, OP_INCR, OP_IS_DONE, OP_MARK_DONE, OP_PERMIT, OP_PERMIT_EXTEND, OP_PERMIT_RELEASE, OP_RAISE, OP_READ, OP_READ_EXTEND, OP_READ_RELEASE, OP_RELEASE, OP_WRITE, undoOf } from '../../src/protocol/opcodes.js';
import { BATCH_SCRIPT, BATCH_SHA, batchArgs } from '../../src/protocol/batch-script.js';
import { setNxArgs } from '../../src/protocol/calls.js';
import { type OpArgs } from '../../src/protocol/opcodes.js';

const test = suite('scripts');

test('SHA is the sha1 of the script body', () => {
  assert.is(BATCH_SHA, createHash('sha1').update(BATCH_SCRIPT).digest('hex'));
});

test('SET NX PX for a lone acquisition', () => {
  assert.equal(setNxArgs('k', 'tok', '1000'), ['SET', 'k', 'tok', 'NX', 'PX', '1000']);
});

test('batch: keys in order; per operation code[count], token and (but for R/Q/X) ttl; keys and values only as arguments', () => {
  const ops: OpArgs[] = [
    { opcode: OP_ACQUIRE, keys: ['a'], token: 't1', ttlArg: '1000', extra: '' },
    { opcode: OP_RELEASE, keys: ['b', 'c'], token: 't2', ttlArg: '0', extra: '' },
    { opcode: OP_EXTEND, keys: ["d'); redis.call('FLUSHALL"], token: 't3', ttlArg: '500', extra: '' },
    { opcode: OP_IS_DONE, keys: ['q'], token: '', ttlArg: '0', extra: '' },
    { opcode: OP_RAISE, keys: ['x1', 'x2'], token: '42', ttlArg: '604800000', extra: '' },
    { opcode: OP_FENCED_ACQUIRE, keys: ['f', 'pipelock:fence:f'], token: 't4', ttlArg: '200', extra: '' },
    { opcode: OP_INCR, keys: ['i'], token: '', ttlArg: '60000', extra: '' },
    { opcode: OP_MARK_DONE, keys: ['m'], token: 't5', ttlArg: '30000', extra: '' },
  ];
  assert.equal(batchArgs('sha', ops, 0, ops.length), [
    'EVALSHA', 'sha', '11', 'a', 'b', 'c', "d'); redis.call('FLUSHALL", 'q', 'x1', 'x2', 'f', 'pipelock:fence:f', 'i', 'm',
    'A', 't1', '1000', 'R2', 't2', 'E', 't3', '500', 'Q', '', 'X2', '42', 'F2', 't4', '200', 'I', '', '60000', 'D', 't5', '30000',
  ]);
  assert.equal(batchArgs('sha', ops, 1, 2), ['EVALSHA', 'sha', '2', 'b', 'c', 'R2', 't2']);
  assert.equal(batchArgs('sha', ops, 3, 5), ['EVALSHA', 'sha', '3', 'q', 'x1', 'x2', 'Q', '', 'X2', '42'], 'Q and X carry no ttl either');
});

test('batch: P and W carry an extra argument after the ttl, u and V none, r, e and T a ttl', () => {
  const ops: OpArgs[] = [
    { opcode: OP_PERMIT, keys: ['s:0', 's:1', 's:2'], token: 't1', ttlArg: '1000', extra: '2' },
    { opcode: OP_READ, keys: ['z', 'w', 'q'], token: 't2', ttlArg: '900', extra: '' },
    { opcode: OP_READ_EXTEND, keys: ['z'], token: 't2', ttlArg: '800', extra: '' },
    { opcode: OP_READ_RELEASE, keys: ['z'], token: 't2', ttlArg: '0', extra: '' },
    { opcode: OP_WRITE, keys: ['z', 'w', 'q'], token: 't3', ttlArg: '700', extra: '350' },
    { opcode: OP_PERMIT_EXTEND, keys: ['s:1', 'c'], token: 't1', ttlArg: '600', extra: '' },
    { opcode: OP_PERMIT_RELEASE, keys: ['s:1', 'c'], token: 't1', ttlArg: '0', extra: '' },
  ];
  assert.equal(batchArgs('sha', ops, 0, ops.length), [
    'EVALSHA', 'sha', '15', 's:0', 's:1', 's:2', 'z', 'w', 'q', 'z', 'z', 'z', 'w', 'q', 's:1', 'c', 's:1', 'c',
    'P3', 't1', '1000', '2', 'r3', 't2', '900', 'e', 't2', '800', 'u', 't2', 'W3', 't3', '700', '350', 'T2', 't1', '600', 'V2', 't1',
  ]);
});

test('undoOf: what deletes a grant a late reply reveals, per acquisition kind; nothing for hints and other ops', () => {
  assert.equal(undoOf(OP_ACQUIRE, ['a', 'b'], 0, 2), { opcode: OP_RELEASE, keys: ['a', 'b'] });
  assert.equal(undoOf(OP_FENCED_ACQUIRE, ['f', 'pipelock:fence:f'], 0, 7), { opcode: OP_RELEASE, keys: ['f', 'pipelock:fence:f'] });
  assert.equal(undoOf(OP_PERMIT, ['s:0', 's:1', 's:2', 'c'], 2, 2), { opcode: OP_RELEASE, keys: ['s:1'] }, 'the slot taken');
  assert.is(undoOf(OP_PERMIT, ['s:0', 's:1', 's:2', 'c'], 2, 3), undefined, 'a hint took nothing');
  assert.equal(undoOf(OP_READ, ['z', 'w', 'q'], 0, 1), { opcode: OP_READ_RELEASE, keys: ['z'] });
  assert.equal(undoOf(OP_WRITE, ['z', 'w', 'q'], 0, 1), { opcode: OP_RELEASE, keys: ['w'] });
  for (const op of [OP_EXTEND, OP_RELEASE, OP_INCR, OP_MARK_DONE, OP_PERMIT_RELEASE] as const) assert.is(undoOf(op, ['k'], 0, 1), undefined, op);
});

test.run();
