import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { mastersSuite } from '../helpers/masters.js';
import { closeAll, connectAll, eventually, type Probe } from '../helpers/redis.js';
import { timed } from '../helpers/timeout.js';
import { valkeyServer } from '../helpers/valkey.js';
import { ExecutionError, MisconfigurationError, Redlock, type MemberCapabilities } from '../../src/index.js';

/**
 * Valkey 9.1 made Lua a module that can be unloaded (`MODULE UNLOAD lua`): every script is then
 * answered `ERR Could not find scripting engine 'lua'`, and the script cache is emptied. Such a
 * member runs no scripts, as for an ACL user denied @scripting: single-key locks go natively, and
 * what needs a script fails at once, named. Always Valkey, whatever the tier.
 */
const test = mastersSuite('valkey without Lua', { count: 3, healEach: true, flushEach: true, redisServer: valkeyServer(), extraArgs: ['--enable-module-command', 'yes'] });

let probes: Probe[] = [];

test.before.each(async ({ masters }) => {
  probes = await connectAll(masters.urls);
});

test.after.each(async ({ masters }) => {
  await closeAll(probes);
  // A built-in engine unloaded does not load again: each test starts from fresh servers.
  await Promise.all(masters.masters.map((master) => master.restart()));
});

const unloadLua = (): Promise<unknown> => Promise.all(probes.map((probe) => probe.sendCommand(['MODULE', 'UNLOAD', 'lua'])));

/**
 * What needs a script fails with MisconfigurationError ('noscripting') at its first attempt, naming the feature and the
 * engine; `learned` runs between the two calls.
 */
async function assertNamed(redlock: Redlock, learned?: () => Promise<void>): Promise<void> {
  // Fencing first: while pipelock still believes a member runs scripts, a lock on several resources goes there as one
  // MSETEX (and is taken, as one taken by script just before the unload would be); the fenced call's refused script is
  // what tells pipelock, and once every member has answered it (`learned`) both are named at once.
  const cases: [string, () => Promise<unknown>, RegExp][] = [
    ['fencing', () => redlock.acquire(['f'], 1000, { fencing: true }), /fencing tokens/],
    ['several resources', () => redlock.acquire(['a', 'b'], 1000), /a lock on several resources/],
  ];
  for (const [i, [name, call, feature]] of cases.entries()) {
    if (i === 1) await learned?.();
    const error = await call().then(() => undefined, (e: unknown) => e);
    assert.instance(error, MisconfigurationError, `${name}: ${String(error)}`);
    const m = error as MisconfigurationError;
    assert.is(m.reason, 'noscripting', name);
    assert.match(m.message, feature, name);
    assert.match(m.message, /Could not find scripting engine/, name);
    assert.match(m.fix, /load the Lua engine/, name);
    assert.is((error as ExecutionError).attempts.length, 1, `${name}: ${(error as ExecutionError).attempts.length} attempts`);
  }
}

/** A single-key acquire, extend and release, then using(): all native. */
async function cycle(redlock: Redlock, key: string): Promise<void> {
  const lock = await redlock.acquire([key], 2000);
  await (await lock.extend(2000)).release();
  await redlock.using([`${key}:using`], 2000, () => Promise.resolve());
}

test('Lua unloaded before pipelock connects: scripting false from the probe; single-key locks native; what needs a script is named at once', timed(20000, async ({ masters }) => {
  await unloadLua();
  const redlock = new Redlock(masters.urls, { retryCount: 3, retryDelay: 100 });
  const errors: unknown[] = [];
  redlock.on('error', (error) => errors.push(error));
  try {
    await redlock.ready();
    assert.equal(redlock.capabilities().map((c) => c.scripting), [false, false, false]);
    await cycle(redlock, 'plain');
    await assertNamed(redlock);
    assert.ok(errors.length <= 6, `${errors.length} 'error' events: ${errors.map(String).join('; ')}`);
  } finally {
    await redlock.quit();
  }
}));

test('Lua unloaded while pipelock runs: the first script refused takes scripting away (said once), and nothing is retried to QuorumUnreachableError', timed(20000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { retryCount: 3, retryDelay: 100 });
  const changes: MemberCapabilities[] = [];
  redlock.on('capability', (change: MemberCapabilities) => changes.push(change));
  try {
    await redlock.ready();
    assert.equal(redlock.capabilities().map((c) => c.scripting), [true, true, true]);
    await unloadLua();
    // The first script each member is sent meets NOSCRIPT (the cache went with the engine), then a
    // SCRIPT LOAD refused: that attempt goes natively where it can, and fails named where it cannot.
    // The fenced call fails at its quorum of refusals; the last member's may still be on its way (a loaded machine).
    await assertNamed(redlock, () => eventually(() => redlock.capabilities().every((c) => !c.scripting), 3000, 'every member without scripting'));
    assert.is(changes.filter((c) => c.reason === 'fallback').length, 3, 'one change per member');
    await cycle(redlock, 'after');
  } finally {
    await redlock.quit();
  }
}));

test.run();
