import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { mastersSuite, probesEach } from '../helpers/masters.js';
import { commandCalls, eventually } from '../helpers/redis.js';
import { rejection, throwsInvalid } from '../helpers/reject.js';
import { timed } from '../helpers/timeout.js';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { ACQUIRE_CHANNEL } from '../../src/engine/channels.js';
import { kNoPrefix } from '../../src/engine/keys.js';
import { internals } from '../../src/redlock.js';
import { gateOf, gateOrder, turnsKey } from '../../src/waiting/gate.js';
import { LockAbortedError, LockLostError, QuorumUnreachableError, Redlock, RedlockClosedError, ResignedError, Term, type Leader } from '../../src/index.js';

// Leader election on three real masters: three Redlock instances (three clients each) campaign.
const test = mastersSuite('election', { count: 3, flushEach: true, healEach: true });
const probes = probesEach(test);

const opened: Redlock[] = [];
const open = (urls: readonly string[]): Redlock => {
  const redlock = new Redlock(urls, { nodeTimeout: 100 });
  opened.push(redlock);
  return redlock;
};
test.after.each(async () => {
  await Promise.allSettled(opened.splice(0).map((r) => r.quit()));
});

const timing = { lease: 900, renewDeadline: 400, retryPeriod: 100 };
/** How late a timer may run on a loaded 2-core machine; the event checks allow it, the signal's reads need none. */
const kTimerSlackMs = 50;

/**
 * Keys left on the masters besides the election's fencing counter and its history of changes
 * (which outlive every term, with TTLs of their own; a history with no TTL is a leftover).
 */
async function leftovers(): Promise<string[]> {
  const keys = (await Promise.all(probes.map(async (p) => {
    const all = await p.keys('*');
    const ttls = await Promise.all(all.map((key) => p.pTTL(key)));
    return all.filter((key, i) => !key.startsWith('pipelock:fence:') && !(key.endsWith(':history') && ttls[i]! > 0));
  }))).flat();
  return keys.sort();
}

test('campaigners of one process lead in arrival order; resign hands over; each term greater', timed(10_000, async ({ masters }) => {
  const redlock = open(masters.urls);
  const elections = [0, 1, 2].map(() => redlock.election('jobs-leader', timing));
  const first = await elections[0]!.campaign({ value: 'a' });
  assert.instance(first, Term);
  const order: string[] = [];
  const second = elections[1]!.campaign({ value: 'b' }).then((t) => { order.push('b'); return t; });
  await new Promise((resolve) => setTimeout(resolve, 50));
  const third = elections[2]!.campaign({ value: 'c' }).then((t) => { order.push('c'); return t; });
  await new Promise((resolve) => setTimeout(resolve, 150));
  assert.equal(order, [], 'nobody else leads while the first does');
  assert.equal(await elections[2]!.leader(), { term: first.term, value: 'a' });
  await first.resign();
  assert.ok(first.signal.aborted);
  assert.instance(first.signal.reason, ResignedError);
  const t2 = await second;
  assert.equal(order, ['b']);
  assert.ok(t2.term > first.term, `${t2.term} > ${first.term}`);
  assert.equal(await elections[0]!.leader(), { term: t2.term, value: 'b' });
  await t2.resign();
  const t3 = await third;
  assert.ok(t3.term > t2.term);
  await t3.resign();
  await t3.resign(); // a second resign sends nothing and does not throw
  assert.is(await elections[0]!.leader(), undefined);
  assert.equal(await leftovers(), []);
}));

test('three Redlocks campaign: one leads at a time, terms strictly increase across leaders', timed(15_000, async ({ masters }) => {
  const elections = [0, 1, 2].map(() => open(masters.urls).election('pods', timing));
  let leading = 0;
  let most = 0;
  const terms: number[] = [];
  await Promise.all(elections.map(async (election) => {
    for (let round = 0; round < 3; round++) {
      const term = await election.campaign();
      leading++;
      most = Math.max(most, leading);
      terms.push(term.term);
      await new Promise((resolve) => setTimeout(resolve, 20));
      leading--;
      await term.resign();
    }
  }));
  assert.is(most, 1);
  assert.is(terms.length, 9);
  for (let i = 1; i < terms.length; i++) assert.ok(terms[i]! > terms[i - 1]!, `term ${i}: ${terms[i]} > ${terms[i - 1]}`);
}));

test('a first in line that the gate grants and the quorum refuses (the release not yet on the others) keeps its turn', timed(15_000, async ({ masters }) => {
  // Long terms and a grace of 500 ms (retryPeriod / 2): the release below follows the gate's DEL well within it.
  const slow = { lease: 10_000, renewDeadline: 4_000, retryPeriod: 1_000 };
  const [held, a, b] = [0, 1, 2].map(() => open(masters.urls).election('split', slow));
  const gate = gateOf(gateOrder(internals(opened[0]!).masters.nodes.map((node) => node.name)), 'split');
  const queue = turnsKey(kNoPrefix, 'split', false);
  const line = async (): Promise<string[]> => probes[gate]!.sendCommand<string[]>(['ZRANGE', queue, '0', '-1']);
  const leader = await held!.campaign({ value: 'held' });
  const order: string[] = [];
  const first = a!.campaign({ value: 'a' }).then((t) => { order.push('a'); return t; });
  await eventually(async () => (await line()).length === 1, 5000, 'a in line at the gate');
  const second = b!.campaign({ value: 'b' }).then((t) => { order.push('b'); return t; });
  await eventually(async () => (await line()).length === 2, 5000, 'b in line at the gate');
  const arrived = await line();
  // The release reaches the gate first: a, first in line, is granted there and refused by the two others.
  const others = probes.filter((_, i) => i !== gate);
  const before = await commandCalls(others, 'set');
  await probes[gate]!.del('split');
  await eventually(async () => (await commandCalls(others, 'set')).every((calls, i) => calls > before[i]!), 2000, 'a\'s granted attempt on the others');
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(await line(), arrived, 'a keeps its place after the split');
  await leader.resign();
  const t1 = await first;
  assert.equal(order, ['a'], 'a leads first');
  await t1.resign();
  await (await second).resign();
  assert.equal(order, ['a', 'b']);
  assert.equal(await line(), [], 'each left the line when its campaign was over');
}));

test('a first in line that never comes (a process gone): the next waits out the grace without polling the gate', timed(15_000, async ({ masters }) => {
  const slow = { lease: 10_000, renewDeadline: 4_000, retryPeriod: 1_000 };
  const [held, next] = [0, 1].map(() => open(masters.urls).election('gone', slow));
  const gate = gateOf(gateOrder(internals(opened[0]!).masters.nodes.map((node) => node.name)), 'gone');
  const queue = turnsKey(kNoPrefix, 'gone', false);
  const leader = await held!.campaign();
  const waiting = next!.campaign();
  await eventually(async () => Number(await probes[gate]!.sendCommand(['ZCARD', queue])) === 1, 5000, 'the waiter in line at the gate');
  await probes[gate]!.sendCommand(['ZADD', queue, '1', 'gone']);
  const [before] = await commandCalls([probes[gate]!], 'evalsha');
  const released = performance.now();
  await leader.resign();
  const term = await waiting;
  const waited = performance.now() - released;
  const [after] = await commandCalls([probes[gate]!], 'evalsha');
  // The grace is retryPeriod / 2: the waiter leads once it is over, having asked the gate about twice
  // meanwhile (its yield re-read every 3 ms asked it about 160 times).
  assert.ok(waited >= 450, `led ${waited.toFixed(0)} ms after the release`);
  assert.ok(after! - before! <= 8, `${after! - before!} scripts at the gate`);
  await term.resign();
}));

test('proclaim changes the value leader() and observe() show; observe sees each change once, in order', timed(10_000, async ({ masters }) => {
  const watcher = open(masters.urls).election('feed', timing);
  const stop = new AbortController();
  const seen: Leader[] = [];
  const observing = (async () => {
    for await (const leader of watcher.observe({ signal: stop.signal })) seen.push(leader);
  })();
  const a = await open(masters.urls).election('feed', timing).campaign({ value: 'a1' });
  await eventually(() => seen.length === 1, 2000, 'the first leader seen');
  await a.proclaim('a2');
  assert.equal(await watcher.leader(), { term: a.term, value: 'a2' });
  await eventually(() => seen.length === 2, 2000, 'the proclaim seen');
  const next = open(masters.urls).election('feed', timing).campaign({ value: 'b1' });
  await a.resign();
  const b = await next;
  await eventually(() => seen.length === 3, 2000, 'the next leader seen');
  await new Promise((resolve) => setTimeout(resolve, 300));
  stop.abort();
  await observing;
  assert.equal(seen, [{ term: a.term, value: 'a1' }, { term: a.term, value: 'a2' }, { term: b.term, value: 'b1' }]);
  await rejection(a.proclaim('late'), ResignedError);
  await b.resign();
}));

test('observe() sees leaderships shorter than its read period, each once and in order (it follows the election\'s history)', timed(15_000, async ({ masters }) => {
  const slow = { lease: 3_000, renewDeadline: 1_000, retryPeriod: 800 };
  const watcher = open(masters.urls).election('short', slow);
  const stop = new AbortController();
  const seen: Leader[] = [];
  const observing = (async () => {
    for await (const leader of watcher.observe({ signal: stop.signal })) seen.push(leader);
  })();
  await new Promise((resolve) => setTimeout(resolve, 100));
  const redlock = open(masters.urls);
  const terms: Leader[] = [];
  // Four leaderships of a few ms each, all between two of the observer's reads (800 ms apart).
  for (const value of ['s1', 's2', 's3', 's4']) {
    const term = await redlock.election('short', slow).campaign({ value });
    terms.push({ term: term.term, value });
    if (value === 's2') {
      await term.proclaim('s2b');
      terms.push({ term: term.term, value: 's2b' });
    }
    await term.resign();
  }
  await eventually(() => seen.length >= terms.length, 5000, `the observer saw ${terms.length} changes`);
  await new Promise((resolve) => setTimeout(resolve, 900));
  stop.abort();
  await observing;
  assert.equal(seen, terms);
  assert.equal(await leftovers(), []);
}));

test('keys deleted behind the leader\'s back: its signal aborts, and the next leader has a greater term', timed(10_000, async ({ masters }) => {
  const a = await open(masters.urls).election('cron', timing).campaign();
  const waiting = open(masters.urls).election('cron', timing).campaign();
  await Promise.all(probes.map((p) => p.del('cron')));
  await eventually(() => a.signal.aborted, 2000, 'the lost leader\'s signal');
  assert.instance(a.signal.reason, LockLostError);
  const b = await waiting;
  assert.ok(b.term > a.term);
  await a.resign(); // after a loss: sends nothing, does not throw
  await b.resign();
}));

test('a crashed leader (quit: keys left to expire): its signal aborts, another takes over after its lease with a greater term', timed(10_000, async ({ masters }) => {
  const doomed = open(masters.urls);
  const a = await doomed.election('singleton', timing).campaign();
  const b = open(masters.urls).election('singleton', timing).campaign();
  const crashed = performance.now();
  await doomed.quit();
  assert.ok(a.signal.aborted);
  assert.instance(a.signal.reason, RedlockClosedError);
  const t = await b;
  assert.ok(performance.now() - crashed > timing.lease * 0.5, 'not before the crashed leader\'s keys expired');
  assert.ok(t.term > a.term);
  await t.resign();
}));

test('a quorum of masters paused: the leader steps down before its lease ends; nobody leads until they are back', timed(15_000, async ({ masters }) => {
  const a = await open(masters.urls).election('q', timing).campaign();
  const other = open(masters.urls).election('q', timing);
  const b = other.campaign();
  let aborted = Infinity;
  a.signal.addEventListener('abort', () => { aborted = performance.now(); });
  // The masters keep the keys at least this long: validity is the lease since the last renewal's
  // send less the clock-drift allowance (driftFactor 0.01 × lease + 2 ms).
  const leaseEnds = performance.now() + a.validity + timing.lease * 0.01 + 2;
  // What the leader reads at the masters' expiry: its signal reads the clock, so however late this timer runs, it
  // must read aborted (a loaded CI machine ran the 'abort' event 15 ms past its time, 3 ms past the expiry).
  const readAtEnd = new Promise<boolean>((resolve) => { setTimeout(() => { resolve(a.signal.aborted); }, leaseEnds - performance.now()); });
  masters.masters[1]!.pause();
  masters.masters[2]!.pause();
  try {
    assert.ok(await readAtEnd, 'the leader\'s signal reads aborted when the masters\' keys expire');
    await eventually(() => a.signal.aborted, 3000, 'the leader\'s signal');
    // The event is a timer's: a stepped-down leader is told in about its time, not after a renewal's budget.
    assert.ok(aborted <= leaseEnds + kTimerSlackMs, `stepped down ${(aborted - leaseEnds).toFixed(1)} ms after its lease ended`);
    assert.instance(a.signal.reason, LockLostError);
    await rejection(other.leader(), QuorumUnreachableError);
  } finally {
    masters.masters[1]!.resume();
    masters.masters[2]!.resume();
  }
  const t = await b;
  assert.ok(t.term > a.term);
  assert.equal(await other.leader(), { term: t.term, value: '' });
  await t.resign();
}));

test('an aborted campaign rejects and leaves no key behind', timed(10_000, async ({ masters }) => {
  const a = await open(masters.urls).election('abort', timing).campaign();
  const stop = new AbortController();
  const waiting = open(masters.urls).election('abort', timing).campaign({ signal: stop.signal });
  await new Promise((resolve) => setTimeout(resolve, 100));
  stop.abort(new Error('shutting down'));
  await rejection(waiting, LockAbortedError);
  await a.resign();
  assert.equal(await leftovers(), []);
  const aborted = AbortSignal.abort();
  await rejection(open(masters.urls).election('abort', timing).campaign({ signal: aborted }), LockAbortedError);
  assert.equal(await leftovers(), []);
  // Given up once it holds the lock (its term and record then written): withdrawn from the history,
  // so observers never hear of it, and the history (which held only it) is gone.
  const late = new AbortController();
  const quit = (): void => { late.abort(new Error('shutting down')); };
  subscribe(`tracing:${ACQUIRE_CHANNEL}:asyncEnd`, quit);
  try {
    await rejection(open(masters.urls).election('abort-late', timing).campaign({ signal: late.signal }), LockAbortedError);
  } finally {
    unsubscribe(`tracing:${ACQUIRE_CHANNEL}:asyncEnd`, quit);
  }
  assert.ok(late.signal.aborted, 'aborted as the lock was acquired');
  const history = await Promise.all(probes.map((p) => p.exists('abort-late:history')));
  assert.equal(history, [0, 0, 0], 'no history of a campaign given up');
  assert.equal(await leftovers(), []);
}));

test('bad options are typed errors naming the argument and the rule', ({ masters }) => {
  const redlock = open(masters.urls);
  throwsInvalid(() => redlock.election('', timing), 'name');
  throwsInvalid(() => redlock.election('e', 5 as never), 'options');
  throwsInvalid(() => redlock.election('e', { lease: -1 }), 'options.lease');
  throwsInvalid(() => redlock.election('e', { lease: 1.5 }), 'options.lease');
  throwsInvalid(() => redlock.election('e', { lease: 1000, renewDeadline: 600 }), 'options.renewDeadline');
  throwsInvalid(() => redlock.election('e', { lease: 1000, renewDeadline: 300, retryPeriod: 250 }), 'options.renewDeadline');
  throwsInvalid(() => redlock.election('e', { lease: 1000, retryPeriod: 300 }), 'options.retryPeriod');
  try {
    redlock.election('e', { lease: 1000, renewDeadline: 300, retryPeriod: 250 });
  } catch (error) {
    assert.match((error as Error).message, /renewDeadline > 1.2 × retryPeriod/);
  }
  const election = redlock.election('e', timing);
  return Promise.all([
    rejection(election.campaign({ value: 3 as never })).then((e) => { assert.is((e as { argument?: string }).argument, 'options.value'); }),
    rejection(election.campaign({ signal: 'x' as never })).then((e) => { assert.is((e as { argument?: string }).argument, 'options.signal'); }),
  ]).then(() => undefined);
});

test.run();
