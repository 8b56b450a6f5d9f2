import '../helpers/setup.js';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { setTimeout as delay } from 'node:timers/promises';
import * as assert from 'uvu/assert';
import { mastersSuite } from '../helpers/masters.js';
import { closeAll, connectAll, eventually, type Probe } from '../helpers/redis.js';
import { rejection } from '../helpers/reject.js';
import { timed } from '../helpers/timeout.js';
import { Redlock } from '../../src/index.js';
import { NODE_CALL_CHANNEL, RENEWAL_CHANNEL, type NodeCallMessage, type RenewalMessage } from '../../src/metrics/index.js';
import { internals } from '../../src/redlock.js';

// extend() of an auto-extended lock: its renewal follows the new duration, and a renewal sent
// before an extension and decided after it never claims more than the extension left on the keys.
const test = mastersSuite('extend() of an auto-extended lock', { count: 3, healEach: true, flushEach: true });

async function ready(redlock: Redlock): Promise<void> {
  await eventually(() => internals(redlock).masters.nodes.every((node) => node.transport.isReady), 5000, 'connected');
}

async function ttls(probes: readonly Probe[], key: string): Promise<number[]> {
  return Promise.all(probes.map((probe) => probe.pTTL(key)));
}

test('a shorter extend() is renewed before it runs out, not reported lost', timed(8000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls);
  try {
    await ready(redlock);
    const lock = await redlock.acquire(['shorter'], 30_000, { autoExtend: true });
    await lock.extend(2000);
    await delay(3000);
    assert.is(lock.signal!.aborted, false, `aborted with ${String(lock.signal!.reason)}`);
    assert.ok(lock.validity > 0);
    await lock.release();
  } finally {
    await redlock.quit();
  }
}));

test('a longer extend() is kept by the renewals that follow it', timed(8000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls);
  const probes = await connectAll(masters.urls);
  try {
    await ready(redlock);
    const lock = await redlock.acquire(['longer'], 2000, { autoExtend: true });
    await lock.extend(20_000);
    await delay(2500);
    const left = await ttls(probes, 'longer');
    assert.ok(left.every((ttl) => ttl > 15_000), `PTTL ${left.join(', ')} ms 2.5 s after extend(20000)`);
    assert.ok(lock.validity > 15_000, `validity ${lock.validity} ms`);
    await lock.release();
  } finally {
    await closeAll(probes);
    await redlock.quit();
  }
}));

// Masters 1 and 2 are paused while a renewal is out; a 1,500 ms extend() is sent behind it and
// gives up (its replies come too late). On resume each master runs the renewal's PEXPIRE, then the
// extension's: the keys carry 1,500 ms, and the renewal, decided now, must not claim its 3,000.
test('a renewal decided after a shorter extend() was sent does not raise the validity', timed(12_000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { nodeTimeout: 4000 });
  const probes = await connectAll(masters.urls);
  const calls: NodeCallMessage[] = [];
  const renewals: RenewalMessage[] = [];
  const onCall = (message: unknown): void => { calls.push(message as NodeCallMessage); };
  const onRenewal = (message: unknown): void => { renewals.push(message as RenewalMessage); };
  subscribe(NODE_CALL_CHANNEL, onCall);
  subscribe(RENEWAL_CHANNEL, onRenewal);
  try {
    await ready(redlock);
    const lock = await redlock.acquire(['raced'], 3000, { autoExtend: true });
    masters.masters[1]!.pause();
    masters.masters[2]!.pause();
    calls.length = 0;
    // The renewal is due ~2 s in: master 0 answers it, the paused two hold it.
    await eventually(() => calls.some((call) => call.node === 0), 4000, 'a renewal sent');
    const failed = rejection(lock.extend(1500, { nodeTimeout: 200, retryCount: 0 }));
    await failed;
    masters.masters[1]!.resume();
    masters.masters[2]!.resume();
    await eventually(() => renewals.length > 0, 4000, 'the renewal decided');
    assert.is(renewals[0]!.renewed, true);
    const left = Math.min(...(await ttls(probes, 'raced')));
    assert.ok(lock.validity <= left, `validity ${lock.validity.toFixed(0)} ms, keys' PTTL ${left} ms`);
    await lock.release();
  } finally {
    unsubscribe(NODE_CALL_CHANNEL, onCall);
    unsubscribe(RENEWAL_CHANNEL, onRenewal);
    await closeAll(probes);
    await redlock.quit();
  }
}));

test.run();
