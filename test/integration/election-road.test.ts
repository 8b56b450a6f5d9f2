import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { setTimeout as delay } from 'node:timers/promises';
import { mastersSuite, probesEach } from '../helpers/masters.js';
import { commandCalls } from '../helpers/redis.js';
import { timed } from '../helpers/timeout.js';
import { kNoPrefix } from '../../src/engine/keys.js';
import { MisconfigurationError, Redlock } from '../../src/index.js';
import { turnsKey } from '../../src/waiting/gate.js';

// The election goes to the masters through the engine (its record writes are operations of the
// batch script, its reads MasterSet.read): what every other call gets, it gets too.
const test = mastersSuite('election through the engine', { count: 3, flushEach: true, healEach: true });
const probes = probesEach(test);

const opened: Redlock[] = [];
test.after.each(async () => {
  await Promise.allSettled(opened.splice(0).map((redlock) => redlock.quit()));
  await Promise.all(probes.map((probe) => probe.sendCommand(['ACL', 'DELUSER', 'app']).catch(() => undefined)));
});

function open(urls: readonly string[]): Redlock {
  const redlock = new Redlock(urls, { nodeTimeout: 100 });
  redlock.on('error', () => undefined);
  opened.push(redlock);
  return redlock;
}

test('item 8: a campaign on members denied scripting fails at once with the permanent MisconfigurationError naming the fix', timed(10_000, async ({ masters }) => {
  await Promise.all(probes.map((probe) => probe.sendCommand(['ACL', 'SETUSER', 'app', 'on', '>pw', '~*', '&*', '+@all', '-@scripting'])));
  const redlock = open(masters.urls.map((url) => url.replace('redis://', 'redis://app:pw@')));
  const started = performance.now();
  const error = await redlock.election('denied', { lease: 2000 }).campaign().catch((e: unknown) => e);
  assert.instance(error, MisconfigurationError, String(error));
  assert.match((error as MisconfigurationError).fix, /scripting/);
  assert.ok(performance.now() - started < 1000, 'failed at once, not retried');
}));

test('item 11: observe() with a paused master does not pile commands up on it', timed(15_000, async ({ masters }) => {
  const redlock = open(masters.urls);
  const election = redlock.election('observed', { lease: 1500, renewDeadline: 600, retryPeriod: 100 });
  await redlock.ready();
  const controller = new AbortController();
  const before = await commandCalls([probes[2]!]);
  masters.masters[2]!.pause();
  // No leader: nothing comes; it reads until the abort.
  const observing = election.observe({ signal: controller.signal }).next();
  // A history read every retryPeriod once the last is decided: each reached the paused master (15 in 3 s before);
  // through the engine, the master is stalled after the first and is sent one probe at a time.
  await delay(3000);
  controller.abort();
  await observing;
  masters.masters[2]!.resume();
  await delay(200);
  const sent = (await commandCalls([probes[2]!]))[0]! - before[0]!;
  assert.ok(sent <= 6, `${sent} commands reached the paused master once it resumed`);
}));

test('item 3: a leadership handed over in-process gets a new token: a record its predecessor left behind does not count again', timed(15_000, async ({ masters }) => {
  const redlock = open(masters.urls);
  // A long lease: the resign comes well within the validity a pass asks for (the lock as it stands).
  const timing = { lease: 100_000 };
  const first = await redlock.election('handed', timing).campaign({ value: 'a' });
  await first.proclaim('a2');
  const second = redlock.election('handed', timing).campaign({ value: 'b' });
  await delay(200);
  const left = await probes[2]!.get('handed:leader');
  await first.resign();
  const term = await second;
  // The resign's erase and the new leader's write did not land on master 2 (paused, stalled): its old record is back.
  await probes[2]!.set('handed:leader', left!);
  // Read from masters 1 and 2 (master 0 paused): a quorum that holds the old record on one of them.
  masters.masters[0]!.pause();
  const read = await redlock.election('handed', timing).leader().finally(() => { masters.masters[0]!.resume(); });
  // Passed with its token, the old record counted there (the previous term and value, while b leads).
  assert.ok(read === undefined || read.term === term.term, `read ${JSON.stringify(read)} while term ${term.term} leads`);
  assert.equal(await redlock.election('handed', timing).leader(), { term: term.term, value: 'b' });
  await term.resign();
}));

test('item 5: the gate keeps its line alive while campaigners wait: every call that leaves one in line renews its expiry', timed(15_000, async ({ masters }) => {
  const timing = { lease: 1500, renewDeadline: 600, retryPeriod: 100 };
  const leader = await open(masters.urls).election('long', timing).campaign({ value: 'a' });
  const waiting = open(masters.urls).election('long', timing).campaign({ value: 'b' });
  // The line's key on the gate master: its expiry, a minute from the last call that left someone in line.
  const ttl = async (): Promise<number> => Math.max(...await Promise.all(probes.map((probe) => probe.pTTL(turnsKey(kNoPrefix, 'long', false)))));
  await delay(500);
  const joined = await ttl();
  await delay(2500);
  const later = await ttl();
  await leader.resign();
  await (await waiting).resign();
  assert.ok(joined > 0, `the line exists (${joined})`);
  assert.ok(later >= 59_000, `${later} ms left 3 s after the line formed: set at the join only, it would be gone after a minute`);
}));

test('item 4: a term never falls below an earlier one after a quorum of masters restarts empty, even from a campaigner whose clock is behind', timed(20_000, async ({ masters }) => {
  const timing = { lease: 2000 };
  const first = await open(masters.urls).election('restarted', timing).campaign();
  await first.resign();
  // Masters 0 and 1 lose the term's counter (restarted empty); master 2 keeps it.
  await Promise.all([masters.masters[0]!.restart(), masters.masters[1]!.restart()]);
  const redlock = open(masters.urls);
  await redlock.ready();
  const now = Date.now;
  // A campaigner whose clock is a minute behind the first's: its floor is below the first term.
  Date.now = () => now() - 60_000;
  try {
    const second = await redlock.election('restarted', timing).campaign();
    assert.ok(second.term > first.term, `term ${second.term} after term ${first.term}`);
    await second.resign();
  } finally {
    Date.now = now;
  }
}));

test.run();
