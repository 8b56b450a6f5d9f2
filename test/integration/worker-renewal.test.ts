import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { mastersSuite } from '../helpers/masters.js';
import { sampleKeys } from '../helpers/sampler.js';
import { timed } from '../helpers/timeout.js';
import { EventLoopBlockedError, ExtensionLimitError, InvalidArgumentError, LockLostError, Redlock, type RedlockOptions } from '../../src/index.js';
import { createClient } from '@redis/client';

// Issue 44: a synchronous stretch keeps the event loop from renewing; with renewal 'worker' a
// thread of its own renews, and the heartbeat bound lets a hung holder's locks go. Judged by
// counts (signals aborted, sampled keys off a quorum), read by a sampler in another process.
const test = mastersSuite('renewal on a worker thread', { count: 5, flushEach: true });

const kLocks = 300;
const kSampled = 20;

/** Blocks this thread's event loop for `ms`: a CPU-bound stretch, a long GC. */
function block(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) { /* no timer, no I/O callback runs */ }
}

interface Held {
  readonly signals: AbortSignal[];
  readonly keys: string[];
  /** Lets every routine return (their locks are released). */
  readonly finish: () => Promise<void>;
}

/** `count` using() routines of `duration` ms on keys `prefix0…`, each waiting until finish(). */
async function holdMany(redlock: Redlock, prefix: string, count: number, duration: number): Promise<Held> {
  const signals: AbortSignal[] = [];
  const keys = Array.from({ length: count }, (_, i) => `${prefix}${i}`);
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => { finish = resolve; });
  let entered: () => void = () => undefined;
  const all = new Promise<void>((resolve) => { entered = resolve; });
  const runs = keys.map((key) => redlock.using([key], duration, async (signal) => {
    if (signals.push(signal) === count) entered();
    await finished;
  }));
  await all;
  return { signals, keys, finish: async () => { finish(); await Promise.allSettled(runs); } };
}

async function redlockOf(urls: readonly string[], options: RedlockOptions): Promise<Redlock> {
  const redlock = new Redlock(urls, { retryCount: 0, ...options });
  await redlock.ready();
  return redlock;
}

test("renewal 'main' (today's): a 4 s block loses every lock of 2 s, its keys gone from a quorum and every signal aborted", timed(40_000, async ({ masters }) => {
  const redlock = await redlockOf(masters.urls, { renewal: 'main' });
  try {
    const held = await holdMany(redlock, 'main-', kLocks, 2000);
    const sampler = await sampleKeys(masters.urls, held.keys.slice(0, kSampled), 5000);
    block(4000);
    const aborted = held.signals.filter((signal) => signal.aborted).length;
    const samples = await sampler.done;
    await held.finish();
    assert.is(aborted, kLocks, 'every signal aborted on resume');
    assert.is(held.signals.filter((signal) => signal.reason instanceof LockLostError).length, kLocks);
    assert.is(samples.off.filter((rounds) => rounds > 0).length, kSampled, `every sampled key was off a quorum (${samples.rounds} rounds)`);
  } finally {
    await redlock.quit();
  }
}));

test("renewal 'worker': the same 4 s block loses nothing: every sampled key on a quorum in every round, no signal aborted", timed(40_000, async ({ masters }) => {
  const redlock = await redlockOf(masters.urls, { renewal: 'worker' });
  try {
    const held = await holdMany(redlock, 'worker-', kLocks, 2000);
    const sampler = await sampleKeys(masters.urls, held.keys.slice(0, kSampled), 5000);
    block(4000);
    const aborted = held.signals.filter((signal) => signal.aborted).length;
    // The worker's reports of the block (none expected) arrive once the loop turns.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const abortedLater = held.signals.filter((signal) => signal.aborted).length;
    const samples = await sampler.done;
    assert.is(redlock.autoExtended, kLocks);
    await held.finish();
    assert.is(aborted, 0, 'no signal aborted on resume');
    assert.is(abortedLater, 0, 'no signal aborted once the worker\'s reports were read');
    assert.ok(samples.rounds > 10, `the sampler read ${samples.rounds} rounds`);
    assert.equal(samples.off, samples.off.map(() => 0), 'every sampled key on a quorum in every round');
    assert.is(redlock.autoExtended, 0, 'released at the end');
  } finally {
    await redlock.quit();
  }
}));

test("renewal 'worker': a block past heartbeatBound lets the locks go (keys off a quorum within bound + duration) and the signals abort with EventLoopBlockedError", timed(30_000, async ({ masters }) => {
  const bound = 1000;
  const duration = 1000;
  const redlock = await redlockOf(masters.urls, { renewal: 'worker', heartbeatBound: bound });
  try {
    const held = await holdMany(redlock, 'bound-', 50, duration);
    const sampler = await sampleKeys(masters.urls, held.keys.slice(0, kSampled), 4000, 25);
    block(3500);
    const reasons = held.signals.map((signal) => (signal.aborted ? signal.reason as unknown : undefined));
    const samples = await sampler.done;
    await held.finish();
    assert.is(reasons.filter((reason) => reason instanceof EventLoopBlockedError).length, 50, 'every signal aborted with the blocked-loop reason');
    assert.ok((reasons[0] as EventLoopBlockedError).message.includes('heartbeatBound (1000 ms)'), (reasons[0] as Error).message);
    assert.is(samples.off.filter((rounds) => rounds > 0).length, kSampled, 'every sampled key went off a quorum');
    // The block starts as the sampler does (it said so first): its clock is the block's, give or take the pipe.
    const late = samples.firstOff.filter((at) => at > bound + duration + 500);
    assert.is(late.length, 0, `keys gone within bound + duration (+500 ms) of the block: ${samples.firstOff.join(', ')}`);
  } finally {
    await redlock.quit();
  }
}));

test("renewal 'worker': a lock's validity and expiration follow the worker's renewals; release and the extension bound behave as on the main thread", timed(20_000, async ({ masters }) => {
  const redlock = await redlockOf(masters.urls, { renewal: 'worker' });
  try {
    const lock = await redlock.acquire(['cell'], 1000, { autoExtend: true });
    const first = lock.expiration;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.is(lock.signal!.aborted, false);
    assert.ok(lock.validity > 0 && lock.expiration > first, `renewed: validity ${lock.validity.toFixed(0)} ms, expiration moved ${lock.expiration - first} ms`);
    assert.is(redlock.autoExtended, 1);
    await lock.release();
    assert.is(lock.expiration, 0);
    assert.is(lock.validity, 0);
    assert.is(redlock.autoExtended, 0);
    const bounded = await redlock.acquire(['bounded'], 600, { autoExtend: true, maxExtensions: 1 });
    const reason = await new Promise<unknown>((resolve) => { bounded.signal!.addEventListener('abort', () => { resolve(bounded.signal!.reason); }, { once: true }); });
    assert.instance(reason, ExtensionLimitError);
  } finally {
    await redlock.quit();
  }
}));

test("renewal 'worker' refuses members it cannot open on its thread: a client object, clientOptions with a function", () => {
  const client = createClient();
  assert.throws(() => new Redlock([client], { renewal: 'worker' }), (error: unknown) => error instanceof InvalidArgumentError && error.argument === 'clients[0]');
  const clientOptions = { socket: { reconnectStrategy: () => 100 } };
  assert.throws(() => new Redlock(['redis://127.0.0.1:1'], { renewal: 'worker', clientOptions }), (error: unknown) => error instanceof InvalidArgumentError && error.argument === 'settings.clientOptions');
});

test.run();
