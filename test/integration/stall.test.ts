import '../helpers/setup.js';
import { setTimeout as delay } from 'node:timers/promises';
import * as assert from 'uvu/assert';
import { mastersSuite, probesEach } from '../helpers/masters.js';
import { eventually, type Probe } from '../helpers/redis.js';
import { timed } from '../helpers/timeout.js';
import { NodeStalledError, Redlock, ResourceLockedError, runOnce } from '../../src/index.js';
import { internals } from '../../src/redlock.js';
import { rejection } from '../helpers/reject.js';

// One master SIGSTOPped while a steady stream of acquisitions and releases runs on the Redlock: a
// master that answers nothing keeps whatever is sent to it in this client until it answers.
const test = mastersSuite('stalled master', { count: 5, healEach: true, flushEach: true });
const probes = probesEach(test);

const kNodeTimeout = 200;
const kLockMs = 3_000;
const kLoops = 16;

/** Counts the calls `redlock` sends master `index` from now on, at its transport. */
function countCalls(redlock: Redlock, index: number): { readonly calls: number } {
  const transport = internals(redlock).masters.nodes[index]!.transport;
  const send = transport.send.bind(transport);
  const counter = { calls: 0 };
  transport.send = (args) => {
    counter.calls++;
    return send(args);
  };
  // A lean connection (URLs) takes the engine's calls through post, with no promise each.
  const post = transport.post?.bind(transport);
  if (post !== undefined) {
    transport.post = (args, sink, token) => {
      counter.calls++;
      post(args, sink, token);
    };
  }
  return counter;
}

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
    await eventually(() => internals(redlock).masters.nodes.every((node) => node.transport.isReady), 5000, 'pipelock connected to every master');
    const sent = countCalls(redlock, 2);

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
    const atDetection = { calls: sent.calls, cycles };
    await delay(1_500);
    const during = { calls: sent.calls - atDetection.calls, cycles: cycles - atDetection.cycles };
    assert.ok(during.cycles > 1_000, `${during.cycles} cycles in 1.5 s of the stall: the other four masters serve the stream`);
    assert.is(during.calls, 0, `${during.calls} calls sent to the stalled master during ${during.cycles} cycles: one probe at a time, already out`);
    assert.equal(failures, [], 'every acquisition and release succeeded on the four others');

    // A lock taken now is on the four others; master 2 is written off at once, not waited for.
    const lock = await redlock.acquire(['stall:one'], kLockMs);
    const stats = await lock.attempts[0]!;
    assert.ok(!stats.votesFor.has(internals(redlock).masters.nodes[2]!.client) && stats.votesFor.size === 4, 'acquired on the four live masters');
    assert.instance(stats.votesAgainst.get(internals(redlock).masters.nodes[2]!.client), NodeStalledError);
    const release = await (await lock.release()).complete();
    assert.is(release.released, 4);
    assert.equal(release.nodes.map((n) => n.vote), ['for', 'for', 'error', 'for', 'for']);

    masters.masters[2]!.resume();
    const resumed = performance.now();
    const callsAtResume = sent.calls;
    // The stall ends when master 2 answers a probe in time: a lock taken after that is on all five.
    await eventually(async () => {
      const after = await redlock.acquire(['stall:after'], kLockMs);
      return (await (await after.release()).complete()).released === 5;
    }, 2_000, 'master 2 serves again');
    const recovery = performance.now() - resumed;
    assert.ok(recovery < 2 * kNodeTimeout, `the stall ended ${recovery.toFixed(0)} ms after the resume (budget ${kNodeTimeout} ms)`);
    // Counted from the calls themselves, not from a fixed wait: a loaded machine sends fewer per 200 ms.
    await eventually(() => sent.calls - callsAtResume > 100, 3000, 'the stream reaches master 2 again (over 100 calls after the resume)');

    running = false;
    await Promise.all(stream);
    assert.equal(failures, [], 'every acquisition and release succeeded');
    // Released cleanly everywhere: on the stalled master too, what it took before the stall was known
    // (or as a probe) is deleted by the releases sent behind it and the undos of its late grants.
    for (const i of [0, 1, 2, 3, 4]) assert.equal(await keysOf(probes[i]!, 'stall:'), { keys: 0, withoutTtl: 0 }, `master ${i}`);
  } finally {
    running = false;
    await Promise.all(stream);
    await redlock.quit();
  }
}));

test('with one master stalled, renewals, fencing, run-once, undos and releases count it as unreachable, send it nothing past the probe, and decide at the quorum of the others', timed(15_000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { retryCount: 0, nodeTimeout: kNodeTimeout });
  try {
    await eventually(() => internals(redlock).masters.nodes.every((node) => node.transport.isReady), 5000, 'pipelock connected to every master');
    masters.masters[2]!.pause();
    // A call it leaves unanswered past its budget marks it stalled; the next operation is the probe.
    const warm = await redlock.acquire(['held:warm'], 10_000);
    await warm.attempts[0];
    const probe = await redlock.acquire(['held:probe'], 10_000);
    const sent = countCalls(redlock, 2);

    // Renewed every ~third of 600 ms for 1.5 s: every renewal decided by the four others.
    let lost: unknown;
    const renewed = await redlock.acquire(['held:renewed'], 600, { autoExtend: true, onLockLost: (_, error) => (lost = error) });
    const fenced = await redlock.acquire(['held:fenced'], 10_000, { fencing: true });
    assert.type(fenced.fence, 'number');
    const ran = await runOnce(redlock, 'held:job', { windowMs: 3_600_000, leaseMs: 600, maxAttempts: 3 }, () => delay(1_500).then(() => 'done'));
    assert.equal(ran, { status: 'ran', value: 'done', attempt: 1, marked: true });
    assert.is(lost, undefined, 'the renewed lock was kept by the four others');
    assert.ok(renewed.validity > 0);
    // A refused attempt's undo does not wait for the stalled master: 2 for, 2 against, 1 not sent.
    for (const i of [0, 1]) await probes[i]!.sendCommand(['SET', 'held:split', 'other', 'PX', '5000']);
    const started = performance.now();
    const refused = await rejection(redlock.acquire(['held:split'], 5000), ResourceLockedError);
    assert.ok(performance.now() - started < kNodeTimeout, 'lost at once and undone at once');
    assert.equal(refused.nodes.map((n) => n.vote), ['against', 'against', 'error', 'for', 'for']);
    assert.instance(refused.nodes[2]!.error, NodeStalledError);
    assert.equal(await Promise.all([3, 4].map((i) => probes[i]!.get('held:split'))), [null, null], 'undone on the live masters');
    for (const lock of [renewed, fenced]) {
      const release = await lock.release();
      assert.ok(release.released >= 3, 'a release resolves at its quorum of the others');
      const complete = await release.complete();
      assert.is(complete.nodes[2]!.vote, 'error');
      assert.instance(complete.nodes[2]!.error, NodeStalledError);
    }
    assert.is(sent.calls, 0, `${sent.calls} calls sent to the stalled master past its probe`);
    // The warm lock's acquisition is still unanswered there: its release goes behind it, to delete in order.
    const warmRelease = await warm.release();
    assert.ok(warmRelease.released >= 3);
    assert.is((await warmRelease.complete()).nodes[2]!.vote, 'timeout');
    assert.is(sent.calls, 1);
    masters.masters[2]!.resume();
    await probe.release();
  } finally {
    masters.masters[2]!.resume();
    await redlock.quit();
  }
}));

test.run();
