import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { setTimeout as delay } from 'node:timers/promises';
import { mastersSuite, probesEach } from '../helpers/masters.js';
import { eventually } from '../helpers/redis.js';
import { timed } from '../helpers/timeout.js';
import { LockLostError, Redlock, type RedlockAbortSignal } from '../../src/index.js';
import { abortedAt } from '../helpers/aborted.js';

// The lost-lock signal from the server (setting watchHeld, src/watch/guard.ts): a held lock
// whose keys are overwritten behind its back learns it from the masters, not at its next renewal.
const test = mastersSuite('held-watch', { count: 5, healEach: true, flushEach: true });

const probes = probesEach(test);


/** Until the guard's first reads armed the key on every master (their watch connections track it). */
async function armed(key: string): Promise<void> {
  await eventually(async () => {
    const counts = await Promise.all(probes.map((probe) => probe.sendCommand<string>(['CLIENT', 'LIST'])));
    return counts.every((list) => /flags=\S*t/.test(list));
  }, 3000, `watch connections for ${key}`);
  // The GETs that arm tracking follow the connection's 'ready'; give them a round trip.
  await delay(50);
}

/** Overwrites `key` on the masters `which` (indexes), as another client would. */
async function overwrite(key: string, which: readonly number[]): Promise<void> {
  await Promise.all(which.map((index) => probes[index]!.sendCommand(['SET', key, 'someone-else', 'PX', '10000'])));
}

// Its first renewal would come ~6.7 s in (below a third of its validity), the first moment it could learn the loss without the
// watch: an abort within 1 s of each overwrite came from the masters' invalidations. (The figures are printed on a failure; quiet,
// they are tens of ms. A median of 50 ms was asked once, and read 54 ms beside two busy loops on a slower host: time is the benchmarks'.)
test('a 10 s using() holder\'s signal aborts with LockLostError within 1 s of its key being overwritten on every master, long before its renewal (5 times)', timed(30000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { watchHeld: true });
  const ms: number[] = [];
  try {
    for (let i = 0; i < 5; i++) {
      const key = `held-${i}`;
      const reason = await redlock.using([key], 10000, async (signal) => {
        await armed(key);
        const aborted = abortedAt(signal);
        const from = performance.now();
        await overwrite(key, [0, 1, 2, 3, 4]);
        ms.push(await Promise.race([aborted, delay(2000).then(() => Infinity)]) - from);
        return signal.error;
      }).catch((error: unknown) => error);
      assert.instance(reason, LockLostError);
      // The lost lock left nothing of its own: the other holder's value stands everywhere.
      for (const probe of probes) assert.is(await probe.get(key), 'someone-else');
    }
  } finally {
    await redlock.quit();
  }
  assert.ok(ms.every((x) => x <= 1_000), `signal aborted after ${ms.map((x) => x.toFixed(1)).join(', ')} ms`);
}));

test('a minority overwritten leaves the lock held; the overwrite that breaks the quorum loses it', timed(10000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { watchHeld: true });
  try {
    const lock = await redlock.acquire(['minority'], 10000, { autoExtend: true });
    await armed('minority');
    await overwrite('minority', [0, 1]);
    await delay(300);
    assert.is(lock.signal!.aborted, false, 'two of five masters lost: three still hold it');
    const aborted = abortedAt(lock.signal!);
    await overwrite('minority', [4]);
    assert.ok(await Promise.race([aborted.then(() => true), delay(1000).then(() => false)]), 'the third loss aborts the signal');
    assert.instance(lock.signal!.error, LockLostError);
    assert.match(lock.signal!.error!.message, /3 of 5 masters/);
  } finally {
    await redlock.quit();
  }
}));

test('without watchHeld the loss waits for the renewal (the control)', timed(10000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls);
  try {
    const lock = await redlock.acquire(['control'], 10000, { autoExtend: true });
    await delay(200);
    await overwrite('control', [0, 1, 2, 3, 4]);
    await delay(500);
    assert.is(lock.signal!.aborted, false);
    await lock.release().catch(() => undefined);
  } finally {
    await redlock.quit();
  }
}));

test('the holder\'s own renewals and release never abort its signal', timed(15000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { watchHeld: true });
  let signal: RedlockAbortSignal | undefined;
  try {
    // 700 ms locks with a 500 ms threshold: renewed every ~200 ms, each renewal's PEXPIRE reported.
    const renewals = await redlock.using(['own'], 700, async (s) => {
      signal = s;
      const start = performance.now();
      await armed('own');
      await delay(2000);
      return Math.round((performance.now() - start) / 200);
    });
    assert.ok(renewals >= 5);
    await delay(300);
    assert.is(signal!.aborted, false, `aborted: ${String(signal!.error)}`);
    for (const probe of probes) assert.is(await probe.get('own'), null);
  } finally {
    await redlock.quit();
  }
}));

test.run();
