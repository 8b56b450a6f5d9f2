import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { mastersSuite } from '../helpers/masters.js';
import { rejection } from '../helpers/reject.js';
import { timed } from '../helpers/timeout.js';
import { InvalidArgumentError, Redlock, RedlockClosedError, runOnce, type RunOnceOutcome } from '../../src/index.js';

// The run-once job guard: once per window, retried after a crash or a failure, at most K times.
const test = mastersSuite('run-once', { count: 5, flushEach: true });

const runners: Redlock[] = [];
test.before(({ masters }) => {
  for (let i = 0; i < 5; i++) runners.push(new Redlock(masters.urls, { retryCount: 0 }));
});
test.after(async () => {
  await Promise.all(runners.map((r) => r.quit()));
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

test('5 competing runners: the job runs exactly once per window; later calls see already-done', timed(10000, async () => {
  let runs = 0;
  const windowEnd = Date.now() + 60_000;
  const job = async (): Promise<string> => {
    runs++;
    await sleep(300);
    return 'report';
  };
  const outcomes = await Promise.all(runners.map((r) => runOnce(r, 'hourly', { windowEnd, leaseMs: 1000, maxAttempts: 3 }, job)));
  assert.is(runs, 1);
  const ran = outcomes.filter((o) => o.status === 'ran');
  assert.is(ran.length, 1);
  assert.equal(ran[0], { status: 'ran', value: 'report', attempt: 1, marked: true });
  assert.ok(outcomes.every((o) => o.status === 'ran' || o.status === 'running-elsewhere' || o.status === 'already-done'));
  const again = await Promise.all(runners.map((r) => runOnce(r, 'hourly', { windowEnd, leaseMs: 1000, maxAttempts: 3 }, job)));
  assert.ok(again.every((o) => o.status === 'already-done'), JSON.stringify(again));
  assert.is(runs, 1);
  // A new window runs again.
  const next = await runOnce(runners[0]!, 'hourly', { windowEnd: windowEnd + 60_000, leaseMs: 1000, maxAttempts: 3 }, job);
  assert.is(next.status, 'ran');
}));

test('a thrown error releases the lease: another runner retries (attempt 2)', timed(10000, async () => {
  const windowEnd = Date.now() + 60_000;
  const options = { windowEnd, leaseMs: 1000, maxAttempts: 3 };
  const boom = new Error('disk full');
  const first = await runOnce(runners[0]!, 'flaky', options, () => Promise.reject(boom));
  assert.equal(first, { status: 'failed', cause: boom, attempt: 1 });
  const second = await runOnce(runners[1]!, 'flaky', options, () => Promise.resolve(42));
  assert.equal(second, { status: 'ran', value: 42, attempt: 2, marked: true });
}));

test('a crashed runner (stops renewing, never releases) is retried after its lease expires', timed(10000, async ({ masters }) => {
  const windowEnd = Date.now() + 60_000;
  const options = { windowEnd, leaseMs: 400, maxAttempts: 3 };
  const doomed = new Redlock(masters.urls, { retryCount: 0 });
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const crashed = runOnce(doomed, 'crashy', options, async (signal) => {
    started();
    await new Promise((resolve) => { signal.addEventListener('abort', resolve, { once: true }); });
    throw new Error('the process died');
  });
  await running;
  const whileRunning = await runOnce(runners[0]!, 'crashy', options, () => Promise.resolve('too early'));
  assert.is(whileRunning.status, 'running-elsewhere');
  // The crash: the runner's process stops (quit aborts its renewals; its lease is left to expire).
  await doomed.quit();
  const outcome = await crashed;
  assert.is(outcome.status, 'failed');
  await sleep(450);
  const retried = await runOnce(runners[0]!, 'crashy', options, () => Promise.resolve('recovered'));
  assert.equal(retried, { status: 'ran', value: 'recovered', attempt: 2, marked: true });
}));

test('maxAttempts: after K failed runs the job is no longer attempted in this window', timed(10000, async () => {
  const windowEnd = Date.now() + 60_000;
  const options = { windowEnd, leaseMs: 1000, maxAttempts: 2 };
  let runs = 0;
  const failing = (): Promise<never> => {
    runs++;
    return Promise.reject(new Error('always'));
  };
  const outcomes: RunOnceOutcome<never>[] = [];
  for (let i = 0; i < 4; i++) outcomes.push(await runOnce(runners[i % 5]!, 'doomed', options, failing));
  assert.equal(outcomes.map((o) => o.status), ['failed', 'failed', 'attempts-exhausted', 'attempts-exhausted']);
  assert.is(runs, 2);
}));

test('bad options get typed errors naming the option', async () => {
  const r = runners[0]!;
  const job = (): Promise<number> => Promise.resolve(1);
  const cases: [unknown, unknown, string][] = [
    ['', { windowMs: 1000, leaseMs: 100, maxAttempts: 1 }, 'jobKey'],
    ['j', { leaseMs: 100, maxAttempts: 1 }, 'options.windowMs'],
    ['j', { windowMs: 1000, windowEnd: Date.now() + 1000, leaseMs: 100, maxAttempts: 1 }, 'options.windowMs'],
    ['j', { windowMs: -1, leaseMs: 100, maxAttempts: 1 }, 'options.windowMs'],
    ['j', { windowEnd: Date.now() - 1, leaseMs: 100, maxAttempts: 1 }, 'options.windowEnd'],
    ['j', { windowMs: 1000, leaseMs: 0, maxAttempts: 1 }, 'options.leaseMs'],
    ['j', { windowMs: 1000, leaseMs: 100, maxAttempts: 0 }, 'options.maxAttempts'],
  ];
  for (const [key, options, argument] of cases) {
    const error = await rejection(runOnce(r, key as string, options as never, job), InvalidArgumentError);
    assert.is(error.argument, argument);
  }
});

test('lockAtLeastFor: two runners whose starts differ by less than it (a skewed clock: another window) run the job once', timed(10000, async () => {
  let runs = 0;
  const job = (): Promise<string> => {
    runs++;
    return Promise.resolve('fast');
  };
  const windowEnd = Date.now() + 60_000;
  const first = await runOnce(runners[0]!, 'skewed', { windowEnd, lockAtMostFor: 5000, lockAtLeastFor: 2000, maxAttempts: 1 }, job);
  assert.is(first.status, 'ran');
  await sleep(100);
  // The second runner's clock puts it in the next window already: the window's done-marker cannot stop it.
  const skewed = await runOnce(runners[1]!, 'skewed', { windowEnd: windowEnd + 60_000, lockAtMostFor: 5000, lockAtLeastFor: 2000, maxAttempts: 1 }, job);
  assert.equal(skewed, { status: 'ran-recently' });
  assert.is(runs, 1);
  // Without the lower bound it would have run twice: the case the option exists for.
  const unbounded = await runOnce(runners[2]!, 'skewed', { windowEnd: windowEnd + 120_000, lockAtMostFor: 5000, maxAttempts: 1 }, job);
  assert.is(unbounded.status, 'ran');
  assert.is(runs, 2);
}));

test('lockAtMostFor: a runner killed mid-job holds the guard until it passes, and not much longer', timed(10000, async ({ masters }) => {
  const windowEnd = Date.now() + 60_000;
  const options = { windowEnd, lockAtMostFor: 600, maxAttempts: 3 };
  const doomed = new Redlock(masters.urls, { retryCount: 0 });
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const crashed = runOnce(doomed, 'killed', options, async (signal) => {
    started();
    await new Promise((resolve) => { signal.addEventListener('abort', resolve); });
    return 'never';
  }).catch((error: unknown) => error);
  await running;
  const killedAt = performance.now();
  // quit() leaves held locks' keys to expire, as a killed process does: no release, no more renewals.
  await doomed.quit();
  assert.instance(await crashed, RedlockClosedError);
  let ranAt = 0;
  for (;;) {
    const outcome = await runOnce(runners[0]!, 'killed', options, () => Promise.resolve('again'));
    if (outcome.status === 'ran') {
      ranAt = performance.now();
      assert.is(outcome.attempt, 2);
      break;
    }
    assert.is(outcome.status, 'running-elsewhere');
    await sleep(25);
  }
  const waited = ranAt - killedAt;
  assert.ok(waited >= 600 * 0.5, `not before the crashed runner's lease ran out (${waited.toFixed(0)} ms)`);
  assert.ok(waited < 600 + 500, `soon after it (${waited.toFixed(0)} ms)`);
}));

test('bounds are checked: lockAtLeastFor ≤ lockAtMostFor, one name for the lease', async () => {
  const job = (): Promise<number> => Promise.resolve(1);
  const base = { windowMs: 60_000, maxAttempts: 1 };
  const error = await rejection(runOnce(runners[0]!, 'j', { ...base, lockAtMostFor: 1000, lockAtLeastFor: 2000 }, job), InvalidArgumentError);
  assert.is(error.argument, 'options.lockAtLeastFor');
  assert.match(error.message, /lockAtLeastFor ≤ lockAtMostFor/);
  assert.is((await rejection(runOnce(runners[0]!, 'j', { ...base, leaseMs: 1000, lockAtMostFor: 1000 }, job), InvalidArgumentError)).argument, 'options.lockAtMostFor');
  assert.is((await rejection(runOnce(runners[0]!, 'j', { ...base, lockAtMostFor: -1 }, job), InvalidArgumentError)).argument, 'options.lockAtMostFor');
  assert.is((await rejection(runOnce(runners[0]!, 'j', { ...base, lockAtMostFor: 1000, lockAtLeastFor: 1.5 }, job), InvalidArgumentError)).argument, 'options.lockAtLeastFor');
  assert.is((await rejection(runOnce(runners[0]!, 'j', { ...base, lockAtMostFor: 1000, lockAtLeastFor: -5 }, job), InvalidArgumentError)).argument, 'options.lockAtLeastFor');
});

test.run();
