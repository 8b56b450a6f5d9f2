import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { encode, encodeShared } from '../../src/transport/lean/encode.js';

// The lean connection's RESP encoding (src/transport/lean/encode.ts): an operation's words, shared by
// every master's call, are encoded once; the wire is the same as encoding them each time.
const test = suite('lean encode');

test('RESP arrays of bulk strings, lengths in bytes (a key or token may hold any UTF-8)', () => {
  assert.is(encode('', ['SET', 'k', 'tök', 'NX']), '*4\r\n$3\r\nSET\r\n$1\r\nk\r\n$4\r\ntök\r\n$2\r\nNX\r\n');
  assert.is(encode('x', []), 'x*0\r\n');
});

test('encodeShared: the same wire as encode, appended; each array of words its own, even with the same first word', () => {
  const a = ['SET', 'a', 't1', 'NX', 'PX', '1000'];
  const b = ['SET', 'b', 't2', 'NX', 'PX', '1000'];
  const once = encodeShared('', a);
  assert.is(once, encode('', a));
  assert.is(encodeShared('head', a), `head${once}`, 'the second master\'s call of the same words');
  assert.is(encodeShared('', b), encode('', b));
  assert.is.not(encodeShared('', b), once);
});

test('encodeShared: the words are encoded once, for the first master, and the kept wire serves the others', () => {
  const words = ['SET', 'a', 't1', 'NX', 'PX', '1000'];
  const first = encodeShared('', words);
  // Changed after the first call (nothing does this): what the next master gets is the kept wire, not a new encoding.
  words[1] = 'b';
  assert.is(encodeShared('', words), first);
});

test('encodeShared: a frozen array is encoded each time, not an error', () => {
  const words = Object.freeze(['DELIFEQ', 'a', 't1']);
  assert.is(encodeShared('x', words), encode('x', words));
  assert.is(encodeShared('', words), encode('', words));
});

test.run();
