import '../helpers/setup.js';
import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BATCH_SCRIPT, BATCH_SHA, batchArgs, OP_ACQUIRE, OP_EXTEND, OP_RELEASE, scriptLoadArgs, setNxArgs, type OpArgs } from '../../src/scripts.js';

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
  ];
  assert.equal(batchArgs('sha', ops, 0, 3), [
    'EVALSHA', 'sha', '4', 'a', 'b', 'c', "d'); redis.call('FLUSHALL",
    'A', 't1', '1000', 'R2', 't2', 'E', 't3', '500',
  ]);
  assert.equal(batchArgs('sha', ops, 1, 2), ['EVALSHA', 'sha', '2', 'b', 'c', 'R2', 't2']);
});

test.run();
