import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Attempt, FAILED } from '../../src/engine/attempt.js';
import { kNativeAtMost } from '../../src/engine/coalescer.js';
import type { CapabilityChange } from '../../src/engine/capability.js';
import { Deadlines } from '../../src/engine/deadlines.js';
import { Flusher } from '../../src/engine/flusher.js';
import { Master } from '../../src/engine/master.js';
import { LOST, WON } from '../../src/engine/quorum.js';
import { Stalls } from '../../src/engine/unanswered.js';
import { NoScriptingError } from '../../src/errors.js';
import { OP_ACQUIRE, OP_EXTEND, OP_FENCED_ACQUIRE, OP_RELEASE, type OpCode } from '../../src/protocol/opcodes.js';
import { deleteIfEqArgs, isScriptingDenied, msetexArgs, nativeByVersion, nativeReply, probeVerdict, setIfEqArgs, type CommandsMode } from '../../src/protocol/native.js';
import { RELEASE_SHA } from '../../src/protocol/release-script.js';
import { FakeTransport, PostingFakeTransport, type FakeServer } from '../helpers/fake-transport.js';

const test = suite('native commands');

const VALKEY_9: FakeServer = { setIfEq: true, delIfEq: true };
const REDIS_8_4: FakeServer = { setIfEq: true, delEx: true };
const REDIS_7: FakeServer = {};
const VALKEY_9_1: FakeServer = { ...VALKEY_9, msetex: true };

async function master(server: FakeServer, commands: CommandsMode = 'auto', posting = false):
  Promise<{ node: Master; transport: FakeTransport; changes: CapabilityChange[] }> {
  const transport = posting ? new PostingFakeTransport(server) : new FakeTransport(server);
  const changes: CapabilityChange[] = [];
  const node = new Master(0, transport, false, { chunkSize: 256, coalesce: true, commands }, () => undefined, { deadlines: new Deadlines([]), stalls: new Stalls(1, 1), flusher: new Flusher() }, (change) => changes.push(change));
  await node.probing();
  return { node, transport, changes };
}

function op(opcode: OpCode, keys: readonly string[], token = 'tok'): Attempt {
  return new Attempt(opcode, keys, token, opcode === OP_RELEASE ? '0' : '1000', 1, performance.now(), 60_000, false, 1);
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('the words: SET IFEQ re-arms only the holder\'s key, DELIFEQ and DELEX IFEQ delete only it; replies as the scripts\' integers', () => {
  assert.equal(setIfEqArgs('k', 't', '500'), ['SET', 'k', 't', 'IFEQ', 't', 'PX', '500']);
  assert.equal(deleteIfEqArgs('DELIFEQ', 'k', 't'), ['DELIFEQ', 'k', 't']);
  assert.equal(deleteIfEqArgs('DELEX', 'k', 't'), ['DELEX', 'k', 'IFEQ', 't']);
  assert.equal([nativeReply('OK'), nativeReply(null), nativeReply(1), nativeReply(0), nativeReply('QUEUED'), nativeReply(2)], [1, 0, 1, 0, undefined, undefined]);
});

test('a probe\'s answer: a reply is yes; a key refused by ACL key patterns is key (the version tells); unknown command, syntax error or a denied command is no; a lost connection or another ERR is unknown', () => {
  assert.is(probeVerdict({ reply: null }), 'yes');
  assert.is(probeVerdict({ error: new Error('NOPERM No permissions to access a key') }), 'key');
  assert.is(probeVerdict({ error: new Error('ERR upstream connection reset by the proxy') }), 'unknown');
  assert.is(probeVerdict({ error: new Error('ERR wrong number of arguments for \'set\' command') }), 'no');
  assert.ok(isScriptingDenied(new Error("ERR Could not find scripting engine 'lua'")));
  assert.is(probeVerdict({ error: new Error("ERR unknown command 'DELIFEQ', with args beginning with: ") }), 'no');
  assert.is(probeVerdict({ error: new Error('ERR syntax error') }), 'no');
  assert.is(probeVerdict({ error: new Error("NOPERM User app has no permissions to run the 'delifeq' command") }), 'no');
  assert.is(probeVerdict({ error: Object.assign(new Error('Socket closed unexpectedly'), { code: 'ECONNRESET' }) }), 'unknown');
  assert.ok(isScriptingDenied(new Error("NOPERM User app has no permissions to run the 'evalsha' command")));
  assert.ok(isScriptingDenied(new Error("NOPERM this user has no permissions to run the 'script|load' command")));
  assert.not.ok(isScriptingDenied(new Error("NOPERM No permissions to access a key")), 'a key pattern is not scripting');
});

test('Valkey 9: a lone extend is SET IFEQ, a lone release DELIFEQ; their replies vote', async () => {
  const { node, transport, changes } = await master(VALKEY_9);
  assert.equal(node.capabilities, { setIfEq: true, deleteIfEq: 'DELIFEQ', scripting: true, msetex: false });
  assert.equal(changes.map((c) => c.reason), ['probe']);
  const extend = op(OP_EXTEND, ['a']);
  node.enqueue(extend);
  await tick();
  assert.equal(transport.sent[0]!.args, ['SET', 'a', 'tok', 'IFEQ', 'tok', 'PX', '1000']);
  transport.sent[0]!.answer('OK');
  await extend.done;
  assert.is(extend.decision, WON);
  const release = op(OP_RELEASE, ['a']);
  node.enqueue(release);
  await tick();
  assert.equal(transport.sent[1]!.args, ['DELIFEQ', 'a', 'tok']);
  transport.sent[1]!.answer(0);
  await release.done;
  assert.is(release.decision, LOST, '0: not ours');
});

test('Redis 8.4: DELEX … IFEQ; Redis 7: scripts, exactly as before', async () => {
  const redis84 = await master(REDIS_8_4);
  redis84.node.enqueue(op(OP_RELEASE, ['a']));
  await tick();
  assert.equal(redis84.transport.sent[0]!.args, ['DELEX', 'a', 'IFEQ', 'tok']);
  const redis7 = await master(REDIS_7);
  assert.equal(redis7.node.capabilities, { setIfEq: false, deleteIfEq: undefined, scripting: true, msetex: false });
  assert.equal(redis7.changes, [], 'nothing changed from what was assumed');
  redis7.node.enqueue(op(OP_EXTEND, ['a']));
  await tick();
  redis7.node.enqueue(op(OP_RELEASE, ['a']));
  await tick();
  redis7.node.enqueue(op(OP_ACQUIRE, ['a']));
  await tick();
  assert.equal(redis7.transport.calls, ['lean 1:E', 'release', 'SET']);
  assert.is(redis7.transport.sent[1]!.args[1], RELEASE_SHA);
});

test('a tick of many: releases and extends natively, acquisitions in one script call; order kept across the two', async () => {
  const { node, transport } = await master(VALKEY_9);
  node.enqueue(op(OP_ACQUIRE, ['a']));
  node.enqueue(op(OP_ACQUIRE, ['b']));
  node.enqueue(op(OP_RELEASE, ['c']));
  node.enqueue(op(OP_ACQUIRE, ['d']));
  node.enqueue(op(OP_EXTEND, ['e', 'f']));
  await tick();
  assert.equal(transport.calls, ['lean 2:A', 'DELIFEQ', '3:A,E2']);
});

test('a tick of many on a connection that posts its commands (the lean one): in auto its acquisitions go natively too, on Redis 7 as on Valkey; a backlog still rides scripts', async () => {
  const { node, transport } = await master(VALKEY_9, 'auto', true);
  node.enqueue(op(OP_ACQUIRE, ['a']));
  node.enqueue(op(OP_ACQUIRE, ['b']));
  node.enqueue(op(OP_RELEASE, ['c']));
  node.enqueue(op(OP_EXTEND, ['e', 'f']));
  await tick();
  assert.equal(transport.calls, ['SET', 'SET', 'DELIFEQ', '2:E2'], 'single-key operations natively; a multi-key extend by script');
  const multi = await master(VALKEY_9_1, 'auto', true);
  multi.node.enqueue(op(OP_ACQUIRE, ['x', 'y']));
  multi.node.enqueue(op(OP_ACQUIRE, ['z']));
  await tick();
  assert.equal(multi.transport.calls, ['MSETEX', 'SET']);
  const redis7 = await master(REDIS_7, 'auto', true);
  redis7.node.enqueue(op(OP_RELEASE, ['c']));
  redis7.node.enqueue(op(OP_RELEASE, ['d']));
  redis7.node.enqueue(op(OP_ACQUIRE, ['a']));
  redis7.node.enqueue(op(OP_ACQUIRE, ['b']));
  await tick();
  assert.equal(redis7.transport.calls, ['lean 2:R', 'SET', 'SET'], 'Redis 7: acquisitions natively, releases (no native delete) in one script call');
  const given7 = await master(REDIS_7, 'auto', false);
  given7.node.enqueue(op(OP_ACQUIRE, ['a']));
  given7.node.enqueue(op(OP_ACQUIRE, ['b']));
  await tick();
  assert.equal(given7.transport.calls, ['lean 2:A'], 'on a client library\'s connection acquisitions stay in one script call');
  const scripts = await master(VALKEY_9, 'scripts', true);
  scripts.node.enqueue(op(OP_ACQUIRE, ['a']));
  scripts.node.enqueue(op(OP_ACQUIRE, ['b']));
  await tick();
  assert.equal(scripts.transport.calls, ['lean 2:A'], "mode 'scripts' keeps them on scripts");
  const burst = await master(VALKEY_9, 'auto', true);
  for (let i = 0; i <= kNativeAtMost; i++) burst.node.enqueue(op(OP_ACQUIRE, [`k${i}`]));
  await tick();
  const chunks = [...Array.from({ length: Math.floor((kNativeAtMost + 1) / 256) }, () => 'lean 256:A'), `lean ${(kNativeAtMost + 1) % 256}:A`];
  assert.equal(burst.transport.calls, chunks, 'past kNativeAtMost, the flush by script (calls of at most chunkSize, 256, keys)');
});

test('a backlog (more than kNativeAtMost operations out and to go) rides scripts where the member runs them; without scripting, or in mode native, it stays native', async () => {
  const burst = (node: Master): void => {
    for (let i = 0; i <= kNativeAtMost; i++) node.enqueue(op(OP_RELEASE, [`k${i}`]));
  };
  const auto = await master(VALKEY_9);
  burst(auto.node);
  await tick();
  const calls = [...Array.from({ length: Math.floor((kNativeAtMost + 1) / 256) }, () => 'lean 256:R'), (kNativeAtMost + 1) % 256 === 1 ? 'release' : `lean ${(kNativeAtMost + 1) % 256}:R`];
  assert.equal(auto.transport.calls, calls, 'script calls of at most chunkSize (256) keys');
  const atLimit = await master(VALKEY_9);
  for (let i = 0; i < kNativeAtMost; i++) atLimit.node.enqueue(op(OP_RELEASE, [`k${i}`]));
  await tick();
  assert.is(atLimit.transport.calls.filter((call) => call === 'DELIFEQ').length, kNativeAtMost, 'up to the limit, native');
  atLimit.node.enqueue(op(OP_RELEASE, ['x']));
  atLimit.node.enqueue(op(OP_RELEASE, ['y']));
  await tick();
  assert.equal(atLimit.transport.calls.slice(kNativeAtMost), ['lean 2:R'], 'with kNativeAtMost out, the next flush by script');
  const native = await master(VALKEY_9, 'native');
  burst(native.node);
  await tick();
  assert.is(native.transport.calls.filter((call) => call === 'DELIFEQ').length, kNativeAtMost + 1);
  const noScripting = await master({ ...VALKEY_9, noScripting: true });
  burst(noScripting.node);
  await tick();
  assert.is(noScripting.transport.calls.filter((call) => call === 'DELIFEQ').length, kNativeAtMost + 1);
});

test("commands: 'scripts' keeps every owner-checked operation on scripts; 'native' sends acquisitions of a tick as SET NX each", async () => {
  const scripts = await master(VALKEY_9, 'scripts');
  scripts.node.enqueue(op(OP_RELEASE, ['a']));
  await tick();
  scripts.node.enqueue(op(OP_EXTEND, ['a']));
  scripts.node.enqueue(op(OP_RELEASE, ['b']));
  await tick();
  assert.equal(scripts.transport.calls, ['release', 'lean 2:ER']);
  const native = await master(VALKEY_9, 'native');
  native.node.enqueue(op(OP_ACQUIRE, ['a']));
  native.node.enqueue(op(OP_ACQUIRE, ['b']));
  native.node.enqueue(op(OP_RELEASE, ['c']));
  await tick();
  assert.equal(native.transport.calls, ['SET', 'SET', 'DELIFEQ']);
});

test('a native command the member no longer knows: it falls back to scripts once, says so, and the operation is resent, not lost', async () => {
  const { node, transport, changes } = await master(VALKEY_9);
  const release = op(OP_RELEASE, ['a']);
  node.enqueue(release);
  await tick();
  transport.sent[0]!.fail(new Error("ERR unknown command 'DELIFEQ', with args beginning with: 'a' 'tok'"));
  await tick();
  assert.equal(transport.calls, ['DELIFEQ', 'release'], 'resent as the script');
  assert.equal(node.capabilities, { setIfEq: true, deleteIfEq: undefined, scripting: true, msetex: false });
  assert.equal(changes.map((c) => [c.reason, c.capabilities.deleteIfEq]), [['probe', 'DELIFEQ'], ['fallback', undefined]]);
  assert.match(String(changes[1]!.error), /unknown command 'DELIFEQ'/);
  transport.sent[1]!.answer(1);
  await release.done;
  assert.is(release.decision, WON, 'the script\'s answer counts');
  node.enqueue(op(OP_RELEASE, ['b']));
  await tick();
  assert.equal(transport.calls.at(-1), 'release', 'later releases go by script at once');
});

test('a member without scripting: single-key operations natively, in ticks of many too; what needs a script is not sent and fails named', async () => {
  const { node, transport } = await master({ ...VALKEY_9, noScripting: true });
  assert.equal(node.capabilities, { setIfEq: true, deleteIfEq: 'DELIFEQ', scripting: false, msetex: false });
  node.enqueue(op(OP_ACQUIRE, ['a']));
  node.enqueue(op(OP_ACQUIRE, ['b']));
  const multi = op(OP_ACQUIRE, ['c', 'd']);
  const fenced = op(OP_FENCED_ACQUIRE, ['e', 'pipelock:fence:e']);
  node.enqueue(multi);
  node.enqueue(fenced);
  node.enqueue(op(OP_EXTEND, ['a']));
  await tick();
  assert.equal(transport.calls, ['SET', 'SET', 'SET IFEQ']);
  await multi.done;
  assert.is(multi.votes[0], FAILED);
  assert.instance(multi.errors![0], NoScriptingError);
  assert.match(String(multi.errors![0]), /runs no scripts for this user \(NOPERM .*'script\|load'.*\), and a lock on several resources/);
  await fenced.done;
  assert.match(String(fenced.errors![0]), /fencing tokens/);
});

test('a script call refused for scripting (an ACL change): the member takes native commands from then on and the call\'s operations are resent natively', async () => {
  const { node, transport, changes } = await master(VALKEY_9, 'scripts');
  const release = op(OP_RELEASE, ['a']);
  node.enqueue(release);
  await tick();
  transport.sent[0]!.fail(new Error("NOPERM User app has no permissions to run the 'evalsha' command"));
  await tick();
  assert.equal(transport.calls, ['release', 'DELIFEQ']);
  assert.is(changes.at(-1)!.capabilities.scripting, false);
  transport.sent[1]!.answer(1);
  await release.done;
  assert.is(release.decision, WON);
});

test('MSETEX: a lone multi-resource acquisition in one command, all keys or none (its 1 counts as every key, 0 as none); a tick of many, mode scripts or a member without scripting keep the script', async () => {
  assert.equal(msetexArgs(['a', 'b'], 't', '500'), ['MSETEX', '2', 'a', 't', 'b', 't', 'NX', 'PX', '500']);
  assert.equal([nativeReply(1, 3), nativeReply(0, 3), nativeReply('OK')], [3, 0, 1]);
  const { node, transport } = await master(VALKEY_9_1);
  assert.equal(node.capabilities, { setIfEq: true, deleteIfEq: 'DELIFEQ', scripting: true, msetex: true });
  const won = op(OP_ACQUIRE, ['a', 'b']);
  node.enqueue(won);
  await tick();
  assert.equal(transport.sent[0]!.args, ['MSETEX', '2', 'a', 'tok', 'b', 'tok', 'NX', 'PX', '1000']);
  transport.sent[0]!.answer(1);
  await won.done;
  assert.is(won.decision, WON);
  const lost = op(OP_ACQUIRE, ['c', 'd']);
  node.enqueue(lost);
  await tick();
  transport.sent[1]!.answer(0);
  await lost.done;
  assert.is(lost.decision, LOST);
  // Two in one tick: one script call for both, as for single-key acquisitions.
  node.enqueue(op(OP_ACQUIRE, ['e', 'f']));
  node.enqueue(op(OP_ACQUIRE, ['g', 'h']));
  await tick();
  assert.equal(transport.calls.slice(2), ['4:A2,A2']);
  const scripts = await master(VALKEY_9_1, 'scripts');
  scripts.node.enqueue(op(OP_ACQUIRE, ['a', 'b']));
  await tick();
  assert.equal(scripts.transport.calls, ['2:A2'], 'by script');
  const denied = await master({ ...VALKEY_9_1, noScripting: true });
  const multi = op(OP_ACQUIRE, ['a', 'b']);
  denied.node.enqueue(multi);
  await multi.done;
  assert.instance(multi.errors![0], NoScriptingError, 'its extend and release would need scripts: not taken');
  assert.equal(denied.transport.calls, []);
});

test('MSETEX refused as unknown (the member changed): it falls back to the script and the acquisition is resent, not lost', async () => {
  const { node, transport, changes } = await master(VALKEY_9_1);
  const acquire = op(OP_ACQUIRE, ['a', 'b']);
  node.enqueue(acquire);
  await tick();
  transport.sent[0]!.fail(new Error("ERR unknown command 'MSETEX', with args beginning with: '2' 'a'"));
  await tick();
  assert.equal(transport.calls[0], 'MSETEX');
  assert.not.equal(transport.calls[1], 'MSETEX', 'resent by script');
  assert.is(node.capabilities.msetex, false);
  assert.equal(changes.map((c) => [c.reason, c.capabilities.msetex]), [['probe', true], ['fallback', false]]);
  transport.sent[1]!.answer([2]);
  await acquire.done;
  assert.is(acquire.decision, WON, "the script's answer counts");
});

test('the native commands a server has by its version, for probes refused for their key', () => {
  assert.equal(nativeByVersion('redis_version:7.0.15\r\n'), { setIfEq: false, deleteIfEq: undefined, msetex: false });
  assert.equal(nativeByVersion('redis_version:8.4.0\r\n'), { setIfEq: true, deleteIfEq: 'DELEX', msetex: true });
  assert.equal(nativeByVersion('redis_version:7.2.4\r\nvalkey_version:8.1.1\r\n'), { setIfEq: true, deleteIfEq: undefined, msetex: false });
  assert.equal(nativeByVersion('redis_version:7.2.4\r\nvalkey_version:9.1.2\r\n'), { setIfEq: true, deleteIfEq: 'DELIFEQ', msetex: true });
  assert.is(nativeByVersion('no version here'), undefined);
});

test.run();
