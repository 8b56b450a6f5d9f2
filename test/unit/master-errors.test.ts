import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { errorKind, explain, isPermanent } from '../../src/engine/master-errors.js';
import { NodeTimeoutError, NodeUnavailableError } from '../../src/errors.js';
import { OP_ACQUIRE, OP_FENCED_ACQUIRE } from '../../src/protocol/opcodes.js';

const test = suite('master errors');

// The replies as redis-server 7.0.15 words them (checked by hand against a real server).
const CASES: [string, string, boolean][] = [
  ["READONLY You can't write against a read only replica.", 'readonly', false],
  ["READONLY You can't write against a read only replica. script: 0f11a53a, on @user_script:17.", 'readonly', false],
  ['LOADING Redis is loading the dataset in memory', 'loading', false],
  ['BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.', 'busy', false],
  ["OOM command not allowed when used memory > 'maxmemory'.", 'oom', false],
  ['CLUSTERDOWN The cluster is down', 'clusterdown', false],
  ['TRYAGAIN Multiple keys request during rehashing of slot', 'tryagain', false],
  ["MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.", 'masterdown', false],
  ['NOSCRIPT No matching script. Please use EVAL.', 'noscript', false],
  ['NOPERM this user has no permissions to access one of the keys used as arguments', 'noperm', true],
  ["NOPERM this user has no permissions to run the 'evalsha' command", 'noperm', true],
  ["ERR The user executing the script can't access at least one of the keys mentioned in the command arguments script: dbe0dd15, on @user_script:1.", 'noperm', true],
  ['WRONGTYPE Operation against a key holding the wrong kind of value', 'wrongtype', true],
  ["ERR unknown command 'DELIFEQ', with args beginning with: ", 'unknown-command', true],
  ['MOVED 3999 127.0.0.1:6381', 'moved', true],
  ['ASK 3999 127.0.0.1:6381', 'ask', false],
  ['WRONGPASS invalid username-password pair or user is disabled.', 'auth', true],
  ['ERR Error running script', 'other', false],
];

for (const [message, kind, permanent] of CASES) {
  test(`${message.slice(0, 40)}… is ${kind}${permanent ? ', permanent' : ''}`, () => {
    assert.is(errorKind(new Error(message)), kind);
    assert.is(isPermanent(errorKind(new Error(message))), permanent);
  });
}

test('MOVED is permanent from a standalone master (a cluster node given as one), healable from a cluster member (a slot migrating)', () => {
  assert.ok(isPermanent('moved'));
  assert.not.ok(isPermanent('moved', true));
  assert.not.ok(isPermanent('ask', true));
  assert.ok(isPermanent('noperm', true), 'a routed member still has permanent failures');
});

test('pipelock\'s own failures: unavailable and timeout, both healable', () => {
  assert.is(errorKind(new NodeUnavailableError('h:1')), 'unavailable');
  assert.is(errorKind(new NodeTimeoutError('h:1', 50)), 'timeout');
  assert.is(errorKind(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' })), 'unavailable');
  assert.not.ok(isPermanent('unavailable'));
  assert.not.ok(isPermanent('timeout'));
});

test('explain: the key, what it is for, and the fix', () => {
  const keys = explain('noperm', new Error('NOPERM this user has no permissions to access one of the keys used as arguments'), 'h:1', OP_FENCED_ACQUIRE, ['a', 'pipelock:fence:a']);
  assert.match(keys.message, /fencing counters/);
  assert.match(keys.message, /"pipelock:fence:a"/);
  assert.match(keys.fix, /~pipelock:\*/);
  const scripts = explain('noperm', new Error("NOPERM this user has no permissions to run the 'evalsha' command"), 'h:1', OP_ACQUIRE, ['a']);
  assert.match(scripts.message, /run 'evalsha'/);
  assert.match(scripts.fix, /\+@scripting/);
  const moved = explain('moved', new Error('MOVED 3999 10.0.0.2:7000'), '10.0.0.1:7000', OP_ACQUIRE, ['a']);
  assert.match(moved.message, /Redis Cluster node/);
  assert.match(moved.fix, /\{ cluster: \['redis:\/\/10\.0\.0\.1:7000'\] \}/);
  assert.match(moved.fix, /redis\+cluster:\/\//);
});

test.run();
