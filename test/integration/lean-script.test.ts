import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { mastersSuite } from '../helpers/masters.js';
import { closeAll, connectAll, type Probe } from '../helpers/redis.js';
import { timed } from '../helpers/timeout.js';
import { Redlock } from '../../src/index.js';
import { LEAN_SHA, leanArgs } from '../../src/protocol/lean-script.js';
import { SCRIPTS, scriptLoadArgs } from '../../src/protocol/calls.js';
import { OP_ACQUIRE, OP_EXTEND, OP_RELEASE, type OpCode } from '../../src/protocol/opcodes.js';
import { BATCH_SHA } from '../../src/protocol/batch-script.js';
import { RELEASE_SHA, releaseArgs } from '../../src/protocol/release-script.js';
import { type OpArgs } from '../../src/protocol/opcodes.js';

// LEAN_SCRIPT against real masters: its reply contract and owner checks called directly on master 0,
// and through Redlock, recovery after SCRIPT FLUSH for each script.
const test = mastersSuite('lean script', { count: 3, flushEach: true });

let probes: Probe[] = [];
test.before(async ({ masters }) => {
  probes = await connectAll(masters.urls);
});
test.after(async () => {
  await closeAll(probes);
});

function op(opcode: OpCode, key: string, token: string, ttlArg = '5000'): OpArgs {
  return { opcode, keys: [key], token, ttlArg, extra: '' };
}

/** One LEAN_SCRIPT call on master 0 (loaded first: a test's FLUSH-free run may be its first call). */
async function lean(...ops: OpArgs[]): Promise<unknown> {
  const args = leanArgs(ops, 0, ops.length);
  assert.ok(args !== undefined, 'the operations fit LEAN_SCRIPT');
  await probes[0]!.sendCommand(scriptLoadArgs(SCRIPTS[0]!));
  return probes[0]!.sendCommand(args);
}

const get = (key: string): Promise<unknown> => probes[0]!.sendCommand(['GET', key]);
const pttl = async (key: string): Promise<number> => Number(await probes[0]!.sendCommand(['PTTL', key]));

test('acquires: every key free, the integer n and every key holds its token with the ttl; one taken, 0 for it alone', timed(5000, async () => {
  assert.is(await lean(op(OP_ACQUIRE, 'a', 't1', '3000'), op(OP_ACQUIRE, 'b', 't2', '3000')), 2);
  assert.equal([await get('a'), await get('b')], ['t1', 't2']);
  for (const key of ['a', 'b']) assert.ok((await pttl(key)) > 2900, key);
  assert.equal(await lean(op(OP_ACQUIRE, 'c', 't3', '3000'), op(OP_ACQUIRE, 'a', 't4', '3000')), [1, 0]);
  assert.equal([await get('c'), await get('a')], ['t3', 't1'], 'a key already held keeps its token');
}));

test('releases are owner-checked: the wrong token deletes nothing; the right one deletes and answers 1', timed(5000, async () => {
  await probes[0]!.sendCommand(['SET', 'mine', 'tok', 'PX', '5000']);
  await probes[0]!.sendCommand(['SET', 'theirs', 'other', 'PX', '5000']);
  assert.equal(await lean(op(OP_RELEASE, 'theirs', 'tok', '0')), [0]);
  assert.is(await get('theirs'), 'other');
  assert.equal(await lean(op(OP_RELEASE, 'theirs', 'tok', '0'), op(OP_RELEASE, 'mine', 'tok', '0'), op(OP_RELEASE, 'gone', 'tok', '0')), [0, 1, 0]);
  assert.equal([await get('theirs'), await get('mine')], ['other', null]);
  await probes[0]!.sendCommand(['SET', 'mine', 'tok', 'PX', '5000']);
  assert.is(await lean(op(OP_RELEASE, 'mine', 'tok', '0')), 1, 'one operation, all well: the integer 1');
}));

test('extends are owner-checked: the wrong token re-arms nothing; the right one re-arms to the new ttl', timed(5000, async () => {
  await probes[0]!.sendCommand(['SET', 'mine', 'tok', 'PX', '1000']);
  await probes[0]!.sendCommand(['SET', 'theirs', 'other', 'PX', '1000']);
  assert.equal(await lean(op(OP_EXTEND, 'theirs', 'tok', '60000'), op(OP_EXTEND, 'mine', 'tok', '60000')), [0, 1]);
  assert.ok((await pttl('theirs')) <= 1000, 'not re-armed');
  assert.ok((await pttl('mine')) > 59_000, 're-armed');
  assert.equal([await get('theirs'), await get('mine')], ['other', 'tok']);
  assert.is(await lean(op(OP_EXTEND, 'mine', 'tok', '30000'), op(OP_EXTEND, 'mine', 'tok', '30000')), 2);
}));

test('a mixed call runs its operations in queue order', timed(5000, async () => {
  // An acquire and its undo in one call: the key is set, then deleted.
  assert.equal(await lean(op(OP_ACQUIRE, 'k', 't1'), op(OP_RELEASE, 'k', 't1', '0')), 2);
  assert.is(await get('k'), null);
  // A release, then another holder's acquire of the same key: the acquire finds it free.
  await probes[0]!.sendCommand(['SET', 'k', 't1', 'PX', '5000']);
  assert.equal(await lean(op(OP_RELEASE, 'k', 't1', '0'), op(OP_ACQUIRE, 'k', 't2'), op(OP_EXTEND, 'k', 't1')), [1, 1, 0]);
  assert.is(await get('k'), 't2');
}));

test('a key of another type is "not ours" for every operation, and the call\'s other operations still run', timed(5000, async () => {
  await probes[0]!.sendCommand(['HSET', 'h', 'f', 'v']);
  assert.equal(await lean(op(OP_ACQUIRE, 'h', 't'), op(OP_EXTEND, 'h', 't'), op(OP_RELEASE, 'h', 't', '0'), op(OP_ACQUIRE, 'x', 't')), [0, 0, 0, 1]);
  assert.is(await probes[0]!.sendCommand(['TYPE', 'h']), 'hash');
}));

/** SCRIPT LOAD calls each master ran since the last CONFIG RESETSTAT. */
async function scriptLoads(): Promise<number[]> {
  const infos = await Promise.all(probes.map((p) => p.info('commandstats')));
  return infos.map((info) => Number(/cmdstat_script\|load:calls=(\d+)/.exec(info)?.[1] ?? /cmdstat_script:calls=(\d+)/.exec(info)?.[1] ?? 0));
}

/** After a SCRIPT FLUSH on every master, `calls` succeeds: the first NOSCRIPT reloads every script once per master. */
async function recovers(redlock: Redlock, calls: () => Promise<void>): Promise<void> {
  // A lock taken and released on every connection, every reply in: the SCRIPT LOADs sent at connect ran before.
  await (await (await redlock.acquire(['warm'], 1000)).release()).complete();
  await Promise.all(probes.map((p) => p.sendCommand(['SCRIPT', 'FLUSH'])));
  await Promise.all(probes.map((p) => p.sendCommand(['CONFIG', 'RESETSTAT'])));
  await calls();
  assert.equal(await scriptLoads(), probes.map(() => SCRIPTS.length), 'one reload of every script per master');
  for (const probe of probes) assert.equal(await probe.sendCommand(['SCRIPT', 'EXISTS', LEAN_SHA, BATCH_SHA]), [1, 1]);
}

test('SCRIPT FLUSH, then LEAN_SCRIPT calls (single-key locks taken and released together): recovered', timed(8000, async ({ masters }) => {
  // The script path: on Valkey 9 a tick's single-key operations go natively by default (native-commands.test.ts).
  const redlock = new Redlock(masters.urls, { retryCount: 0, commands: 'scripts' });
  try {
    await recovers(redlock, async () => {
      const locks = await Promise.all(['l1', 'l2', 'l3'].map((key) => redlock.acquire([key], 5000)));
      const results = await Promise.all(locks.map(async (lock) => (await lock.release()).complete()));
      assert.equal(results.map((r) => r.released), [3, 3, 3]);
    });
  } finally {
    await redlock.quit();
  }
}));

test('SCRIPT FLUSH, then BATCH_SCRIPT calls (multi-key locks): recovered', timed(8000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { retryCount: 0 });
  try {
    await recovers(redlock, async () => {
      const locks = await Promise.all(['m1', 'm2'].map((key) => redlock.acquire([key, `${key}:b`], 5000)));
      const results = await Promise.all(locks.map(async (lock) => (await lock.release()).complete()));
      assert.equal(results.map((r) => r.released), [3, 3]);
    });
  } finally {
    await redlock.quit();
  }
}));

test('a lone release (RELEASE_SCRIPT): 1 and the key gone when it holds the token; 0 and untouched for another token, a missing key or a key of another type', timed(5000, async () => {
  await probes[0]!.sendCommand(scriptLoadArgs(SCRIPTS.find((script) => script.sha === RELEASE_SHA)!));
  await probes[0]!.sendCommand(['SET', 'solo', 'mine', 'PX', '5000']);
  assert.is(await probes[0]!.sendCommand(releaseArgs('solo', 'theirs')), 0);
  assert.is(await get('solo'), 'mine');
  assert.is(await probes[0]!.sendCommand(releaseArgs('solo', 'mine')), 1);
  assert.is(await get('solo'), null);
  assert.is(await probes[0]!.sendCommand(releaseArgs('solo', 'mine')), 0);
  await probes[0]!.sendCommand(['HSET', 'solo-hash', 'f', 'mine']);
  assert.is(await probes[0]!.sendCommand(releaseArgs('solo-hash', 'mine')), 0, 'a key of another type is not ours, and no error');
  assert.is(await probes[0]!.sendCommand(['TYPE', 'solo-hash']), 'hash');
}));

test('a lock taken and released one at a time goes out as SET NX PX and RELEASE_SCRIPT, and its release counts', timed(5000, async ({ masters }) => {
  // The script path (Redis 7's; on Valkey 9 the default release is DELIFEQ: native-commands.test.ts).
  const redlock = new Redlock(masters.urls, { commands: 'scripts' });
  try {
    const before = await Promise.all(probes.map((probe) => probe.info('commandstats')));
    const lock = await redlock.acquire(['one-at-a-time'], 5000);
    const result = await (await lock.release()).complete();
    assert.is(result.released, 3);
    assert.equal(await Promise.all(probes.map((probe) => probe.get('one-at-a-time'))), [null, null, null]);
    const after = await Promise.all(probes.map((probe) => probe.info('commandstats')));
    const calls = (info: string, name: string): number => Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(info)?.[1] ?? 0);
    for (const [i, info] of after.entries()) assert.is(calls(info, 'evalsha') - calls(before[i]!, 'evalsha'), 1, 'one script call per master: the release');
  } finally {
    await redlock.quit();
  }
}));

test.run();
