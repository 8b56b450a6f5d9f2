import '../helpers/setup.js';
import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as protocol from '../../src/protocol/index.js';
import { SCRIPTS as kLibraryScripts } from '../../src/protocol/calls.js';
import { createToken } from '../../src/protocol/token.js';

const test = suite('pipelock/protocol');

test('exports these five and nothing else: a new one is a public promise', () => {
  assert.equal(Object.keys(protocol).sort(), ['BATCH_SHA', 'DONE_MARKER', 'SCRIPTS', 'TOKEN_BYTES', 'quorumSize']);
});

test('quorumSize is the majority: ⌊n/2⌋ + 1', () => {
  assert.equal([1, 2, 3, 4, 5, 6, 7].map(protocol.quorumSize), [1, 2, 2, 3, 3, 4, 4]);
});

test('SCRIPTS are the scripts the library loads, each named by the SHA1 of its source; BATCH_SHA is one of them', () => {
  assert.equal(protocol.SCRIPTS.map((s) => s.sha), kLibraryScripts.map((s) => s.sha));
  for (const script of protocol.SCRIPTS) assert.is(script.sha, createHash('sha1').update(script.source).digest('hex'));
  assert.ok(protocol.SCRIPTS.some((s) => s.sha === protocol.BATCH_SHA));
});

test('SCRIPTS is frozen, so a caller cannot change what the library sends', () => {
  assert.ok(Object.isFrozen(protocol.SCRIPTS) && protocol.SCRIPTS.every((s) => Object.isFrozen(s)));
  assert.throws(() => {
    (protocol.SCRIPTS[0] as { sha: string }).sha = 'x';
  }, TypeError);
  assert.is.not(kLibraryScripts[0]!.sha, 'x');
});

test('a token is TOKEN_BYTES in base64url: ⌈TOKEN_BYTES × 4/3⌉ characters', () => {
  assert.match(createToken(), new RegExp(`^[A-Za-z0-9_-]{${Math.ceil((protocol.TOKEN_BYTES * 4) / 3)}}$`));
});

test('DONE_MARKER is pinned: keys older versions left must still read as done', () => {
  assert.is(protocol.DONE_MARKER, 'pipelock:done');
});

test.run();
