import '../helpers/setup.js';
import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  BATCH_SCRIPT, BATCH_SHA, batchArgs, OP_ACQUIRE, OP_EXTEND, OP_FENCED_ACQUIRE, OP_INCR, OP_IS_DONE, OP_MARK_DONE, OP_RAISE, OP_RELEASE,
  scriptLoadArgs, setNxArgs, type OpArgs,
} from '../../src/scripts.js';

const test = suite('scripts');

test('SHA is the sha1 of the script body', () => {
  assert.is(BATCH_SHA, createHash('sha1').update(BATCH_SCRIPT).digest('hex'));
  assert.equal(scriptLoadArgs(), ['SCRIPT', 'LOAD', BATCH_SCRIPT]);
});

test('SET NX PX for a lone acquisition', () => {
  assert.equal(setNxArgs('k', 'tok', '1000'), ['SET', 'k', 'tok', 'NX', 'PX', '1000']);
});

test('batch: keys in order; per operation code[count], token and (but for R/Q/X) ttl; keys and values only as arguments', () => {
  const ops: OpArgs[] = [
    { opcode: OP_ACQUIRE, keys: ['a'], token: 't1', ttlArg: '1000' },
    { opcode: OP_RELEASE, keys: ['b', 'c'], token: 't2', ttlArg: '0' },
    { opcode: OP_EXTEND, keys: ["d'); redis.call('FLUSHALL"], token: 't3', ttlArg: '500' },
    { opcode: OP_IS_DONE, keys: ['q'], token: '', ttlArg: '0' },
    { opcode: OP_RAISE, keys: ['x1', 'x2'], token: '42', ttlArg: '604800000' },
    { opcode: OP_FENCED_ACQUIRE, keys: ['f', 'pipelock:fence:f'], token: 't4', ttlArg: '200' },
    { opcode: OP_INCR, keys: ['i'], token: '', ttlArg: '60000' },
    { opcode: OP_MARK_DONE, keys: ['m'], token: 't5', ttlArg: '30000' },
  ];
  assert.equal(batchArgs('sha', ops, 0, ops.length), [
    'EVALSHA', 'sha', '11', 'a', 'b', 'c', "d'); redis.call('FLUSHALL", 'q', 'x1', 'x2', 'f', 'pipelock:fence:f', 'i', 'm',
    'A', 't1', '1000', 'R2', 't2', 'E', 't3', '500', 'Q', '', 'X2', '42', 'F2', 't4', '200', 'I', '', '60000', 'D', 't5', '30000',
  ]);
  assert.equal(batchArgs('sha', ops, 1, 2), ['EVALSHA', 'sha', '2', 'b', 'c', 'R2', 't2']);
  assert.equal(batchArgs('sha', ops, 3, 5), ['EVALSHA', 'sha', '3', 'q', 'x1', 'x2', 'Q', '', 'X2', '42'], 'Q and X carry no ttl either');
});

test.run();
