import '../helpers/setup.js';
import { setTimeout as delay } from 'node:timers/promises';
import * as assert from 'uvu/assert';
import { mastersSuite, probesEach } from '../helpers/masters.js';
import { eventually, type Probe } from '../helpers/redis.js';
import { timed } from '../helpers/timeout.js';
import { NodeStalledError, Redlock } from '../../src/index.js';

// One master SIGSTOPped while a steady stream of acquisitions and releases runs on the Redlock: a
// master that answers nothing keeps whatever is sent to it in this client until it answers.
const test = mastersSuite('stalled master', { count: 5, healEach: true, flushEach: true });
const probes = probesEach(test);

const kNodeTimeout = 200;
const kLockMs = 3_000;
const kLoops = 16;

/** Lock keys under `prefix` on one master, and how many of them have no TTL. */
async function keysOf(probe: Probe, prefix: string): Promise<{ keys: number; withoutTtl: number }> {
  const keys = await probe.sendCommand<string[]>(['KEYS', `${prefix}*`]);
  let withoutTtl = 0;
  for (const key of keys) if (Number(await probe.sendCommand(['PTTL', key])) < 0) withoutTtl++;
  return { keys: keys.length, withoutTtl };
}

test('one of 5 masters stalled: the calls sent to it are bounded by one probe, not by the operations; the stall ends on resume; locks meanwhile are on the four others', timed(20_000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { retryCount: 0, nodeTimeout: kNodeTimeout });
  let running = true;
  let stream: Promise<void>[] = [];
  try {
    await eventually(() => redlock.masters.nodes.every((node) => node.transport.isReady), 5000, 'pipelock connected to every master');
    // The calls pipelock sends master 2, counted at its transport.
    const transport = redlock.masters.nodes[2]!.transport;
    const send = transport.send.bind(transport);
    let calls = 0;
    transport.send = (args) => {
      calls++;
      return send(args);
    };

    let cycles = 0;
    const failures: unknown[] = [];
    stream = Array.from({ length: kLoops }, async (_, loop) => {
      for (let i = 0; running; i++) {
        try {
          const lock = await redlock.acquire([`stall:${loop}:${i}`], kLockMs);
          await lock.release();
          cycles++;
        } catch (error) {
          failures.push(error);
        }
      }
    });

    await delay(300);
    assert.ok(cycles > 100, `${cycles} cycles before the stall`);
    masters.masters[2]!.pause();
    // One budget for a call to go unanswered past it, one for the deadline scan: the stall is then known.
    await delay(3 * kNodeTimeout);
    const atDetection = { calls, cycles };
    await delay(1_500);
    const during = { calls: calls - atDetection.calls, cycles: cycles - atDetection.cycles };
    assert.ok(during.cycles > 1_000, `${during.cycles} cycles in 1.5 s of the stall: the other four masters serve the stream`);
    assert.is(during.calls, 0, `${during.calls} calls sent to the stalled master during ${during.cycles} cycles: one probe at a time, already out`);
    assert.equal(failures, [], 'every acquisition and release succeeded on the four others');

    // A lock taken now is on the four others; master 2 is written off at once, not waited for.
    const lock = await redlock.acquire(['stall:one'], kLockMs);
    const stats = await lock.attempts[0]!;
    assert.ok(!stats.votesFor.has(redlock.masters.nodes[2]!.client) && stats.votesFor.size === 4, 'acquired on the four live masters');
    assert.instance(stats.votesAgainst.get(redlock.masters.nodes[2]!.client), NodeStalledError);
    const release = await (await lock.release()).complete();
    assert.is(release.released, 4);
    assert.equal(release.nodes.map((n) => n.vote), ['for', 'for', 'error', 'for', 'for']);

    masters.masters[2]!.resume();
    const resumed = performance.now();
    const callsAtResume = calls;
    // The stall ends when master 2 answers a probe in time: a lock taken after that is on all five.
    await eventually(async () => {
      const after = await redlock.acquire(['stall:after'], kLockMs);
      return (await (await after.release()).complete()).released === 5;
    }, 2_000, 'master 2 serves again');
    const recovery = performance.now() - resumed;
    assert.ok(recovery < 2 * kNodeTimeout, `the stall ended ${recovery.toFixed(0)} ms after the resume (budget ${kNodeTimeout} ms)`);
    await delay(200);
    assert.ok(calls - callsAtResume > 100, `${calls - callsAtResume} calls after the resume: the stream reaches master 2 again`);

    running = false;
    await Promise.all(stream);
    assert.equal(failures, [], 'every acquisition and release succeeded');
    // Released cleanly on the four others; the stalled master holds at most what it was sent before
    // the stall was known or as a probe, each key with its TTL.
    for (const i of [0, 1, 3, 4]) assert.equal(await keysOf(probes[i]!, 'stall:'), { keys: 0, withoutTtl: 0 }, `master ${i}`);
    const left = await keysOf(probes[2]!, 'stall:');
    assert.is(left.withoutTtl, 0);
    assert.ok(left.keys <= atDetection.calls, `${left.keys} keys on master 2`);
  } finally {
    running = false;
    await Promise.all(stream);
    await redlock.quit();
  }
}));

test.run();
