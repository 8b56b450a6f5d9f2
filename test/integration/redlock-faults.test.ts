import '../helpers/setup.js';
import { readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import * as assert from 'uvu/assert';
import { mastersSuite, probesEach } from '../helpers/masters.js';
import { closeAll, connectAll, eventually, valuesOf } from '../helpers/redis.js';
import { rejection } from '../helpers/reject.js';
import { FaultProxy } from '../helpers/proxy.js';
import { timed } from '../helpers/timeout.js';
import { userClients } from '../helpers/client-kinds.js';
import { SCRIPTS } from '../../src/protocol/calls.js';
import { type Lock, ExecutionError, NodeStalledError, NodeTimeoutError, QuorumUnreachableError, Redlock, ResourceLockedError } from '../../src/index.js';
import { internals } from '../../src/redlock.js';

// The fault tests run for each kind of client a user may hand pipelock: URLs (connections pipelock
// opens with @redis/client) and ioredis clients (connections pipelock duplicates from them).
for (const kind of ['urls', 'ioredis'] as const) faults(kind);

function faults(kind: 'urls' | 'ioredis'): void {
  // Each test breaks masters on purpose; the fixture heals (resume, restart) and flushes before the next.
  const test = mastersSuite(`redlock faults (${kind})`, { count: 5, healEach: true, flushEach: true });

  const probes = probesEach(test);

  /** A Redlock over `urls`, as this suite's kind of user builds it; quit() closes every connection. */
  async function withRedlock(urls: readonly string[], settings: ConstructorParameters<typeof Redlock>[1], fn: (redlock: Redlock) => Promise<void>): Promise<void> {
    const users = kind === 'urls' ? undefined : await userClients(kind, urls);
    const redlock = new Redlock(users?.clients ?? urls, settings);
    try {
      await eventually(() => internals(redlock).masters.nodes.every((node) => node.transport.isReady), 5000, 'pipelock connected to every master');
      await fn(redlock);
    } finally {
      await redlock.quit();
      await users?.close();
    }
  }

  test('2 of 5 masters killed: still acquires and releases; the dead ones are named in the release', timed(8000, async ({ masters }) => {
    await withRedlock(masters.urls, { retryCount: 0 }, async (redlock) => {
      await masters.masters[0]!.stop();
      await masters.masters[3]!.stop();
      const lock = await redlock.acquire(['two-dead'], 5000);
      assert.ok(lock.validity > 4000);
      const result = await (await lock.release()).complete();
      assert.is(result.released, 3);
      assert.equal(result.nodes.map((n) => n.vote), ['error', 'for', 'for', 'error', 'for']);
      assert.match(result.nodes[0]!.error!.message, /not connected|ECONNREFUSED|closed|Socket/i);
    });
  }));

  test('3 of 5 masters killed: QuorumUnreachableError naming the dead masters, fast', timed(8000, async ({ masters }) => {
    await withRedlock(masters.urls, { retryCount: 0, nodeTimeout: 200 }, async (redlock) => {
      for (const i of [1, 2, 4]) await masters.masters[i]!.stop();
      const started = performance.now();
      const error = await rejection(redlock.acquire(['three-dead'], 5000), QuorumUnreachableError);
      const elapsed = performance.now() - started;
      assert.instance(error, QuorumUnreachableError);
      assert.is(error.code, 'ERR_PIPELOCK_QUORUM_UNREACHABLE');
      assert.equal(error.nodes.map((n) => n.vote === 'error' || n.vote === 'timeout'), [false, true, true, false, true]);
      for (const i of [1, 2, 4]) assert.ok(error.message.includes(`${masters.masters[i]!.host}:${masters.masters[i]!.port}`), error.message);
      assert.ok(elapsed < 200 + 100, `took ${elapsed} ms with a 200 ms budget`);
      // The two live masters took the key; the failed attempt removed it again.
      assert.equal(await Promise.all([probes[0]!.get('three-dead'), probes[3]!.get('three-dead')]), [null, null]);
    });
  }));

  test('one master SIGSTOPped: acquire does not wait for it; three stopped: fails within the budget, cleans up after resume', timed(10000, async ({ masters }) => {
    await withRedlock(masters.urls, { retryCount: 0, nodeTimeout: 150 }, async (redlock) => {
      masters.masters[2]!.pause();
      let started = performance.now();
      const lock = await redlock.acquire(['paused-one'], 5000);
      assert.ok(performance.now() - started < 100, 'quorum of 4 live masters decides without the paused one');
      const release = await lock.release();
      assert.ok(performance.now() - started < 100, 'release also decides at the quorum, without the paused master');
      const released = await release.complete();
      assert.is(released.released, 4);
      assert.is(released.nodes[2]!.vote, 'timeout');

      masters.masters[0]!.pause();
      masters.masters[4]!.pause();
      started = performance.now();
      const error = await rejection(redlock.acquire(['paused-three'], 5000), ExecutionError);
      const elapsed = performance.now() - started;
      assert.is(error.code, 'ERR_PIPELOCK_QUORUM_UNREACHABLE');
      assert.equal(error.nodes.map((n) => n.vote), ['timeout', 'for', 'timeout', 'for', 'timeout']);
      // One budget for the attempt and one for its cleanup, not one per master.
      assert.ok(elapsed < 2 * 150 + 100, `took ${elapsed} ms with a 150 ms budget`);
      for (const i of [0, 2, 4]) masters.masters[i]!.resume();
      // The paused masters run the stale SET and then, in order on the same connection, its cleanup.
      await eventually(async () => (await valuesOf(probes, 'paused-three')).every((v) => v === null), 2000, 'no key of the failed attempt remains');
    });
  }));

  test('a release no quorum answered is tried again, on the masters that did not answer; with retryCount 0 it fails at once', timed(10000, async ({ masters }) => {
    await withRedlock(masters.urls, { retryCount: 3, retryDelay: 200, retryJitter: 0, nodeTimeout: 100 }, async (redlock) => {
      const lock = await redlock.acquire(['release-retry'], 10_000);
      for (const i of [0, 2, 4]) masters.masters[i]!.pause();
      setTimeout(() => {
        for (const i of [0, 2, 4]) masters.masters[i]!.resume();
      }, 150);
      // Tried at 0 (two answer, three time out at 100 ms), again at ~300 ms on the three only.
      const result = await (await lock.release()).complete();
      assert.is(result.attempts.length, 2);
      assert.is(result.expired, false);
      assert.is(result.released, 5);
      assert.equal(await valuesOf(probes, 'release-retry'), [null, null, null, null, null]);

      const once = await redlock.acquire(['release-once'], 10_000);
      for (const i of [0, 2, 4]) masters.masters[i]!.pause();
      const error = await rejection(redlock.release(once, { retryCount: 0 }), QuorumUnreachableError);
      for (const i of [0, 2, 4]) masters.masters[i]!.resume();
      assert.match(error.message, /after 1 attempt\(s\)/);
      assert.is(error.attempts.length, 1);
    });
  }));

  test('SCRIPT FLUSH while running: operations recover (one reload per master) and succeed', timed(10000, async ({ masters }) => {
    await withRedlock(masters.urls, { retryCount: 3, retryDelay: 10 }, async (redlock) => {
      let loads = 0;
      const monitorCounts = async (): Promise<number> => {
        const infos = await Promise.all(probes.map((p) => p.info('commandstats')));
        return infos.reduce((sum, info) => sum + Number(/cmdstat_script\|load:calls=(\d+)/.exec(info)?.[1] ?? /cmdstat_script:calls=(\d+)/.exec(info)?.[1] ?? 0), 0);
      };
      const before = await monitorCounts();
      const rounds: Promise<void>[] = [];
      for (let round = 0; round < 20; round++) {
        if (round === 10) await Promise.all(probes.map((p) => p.scriptFlush()));
        rounds.push(...Array.from({ length: 50 }, async (_, i) => {
          const lock = await redlock.acquire([`sf:${round}:${i}`, `sf:${round}:${i}:b`], 5000);
          const result = await (await lock.release()).complete();
          assert.is(result.released, 5);
        }));
        await Promise.all(rounds);
      }
      loads = (await monitorCounts()) - before;
      // A reload loads every script (src/protocol/calls.ts SCRIPTS).
      assert.ok(loads >= 5 * SCRIPTS.length && loads <= 10 * SCRIPTS.length, `SCRIPT LOAD calls after the flush: ${loads}`);
      for (const probe of probes) assert.is(await probe.dbSize(), 0);
    });
  }));

  test('a master restarted while running: operations keep succeeding and it serves again after', timed(15000, async ({ masters }) => {
    await withRedlock(masters.urls, { retryCount: 3, retryDelay: 20 }, async (redlock) => {
      let stop = false;
      let done = 0;
      const worker = async (w: number): Promise<void> => {
        for (let i = 0; !stop; i++) {
          const lock = await redlock.acquire([`rs:${w}:${i}`, `rs:${w}:${i}:b`], 5000);
          await lock.release();
          done++;
        }
      };
      const workers = Array.from({ length: 8 }, (_, w) => worker(w));
      await masters.masters[1]!.restart({ delayMs: 200 });
      await eventually(() => internals(redlock).masters.nodes[1]!.transport.isReady, 5000, 'the restarted master reconnects');
      const afterRestart = done;
      await eventually(() => done > afterRestart + 200, 5000, 'operations continue');
      // The restarted master came back empty; its script cache was reloaded and it takes locks again.
      const lock = await redlock.acquire(['after-restart', 'after-restart:b'], 5000);
      const [fresh] = await connectAll([masters.urls[1]!]);
      await eventually(async () => (await fresh!.get('after-restart')) === lock.value, 2000, 'the restarted master holds the new lock');
      await closeAll([fresh!]);
      stop = true;
      await Promise.all(workers);
      await lock.release();
    });
  }));

  test('validity shrinks by the time the quorum took to answer', timed(8000, async ({ masters }) => {
    await withRedlock(masters.urls, { retryCount: 0, nodeTimeout: 2000 }, async (redlock) => {
      for (const i of [0, 1, 2]) masters.masters[i]!.pause();
      setTimeout(() => {
        masters.masters[0]!.resume();
      }, 300);
      const lock = await redlock.acquire(['slow'], 3000);
      // 300 ms waiting for the third vote, and the 32 ms drift (3000 × 0.01 + 2). The resume timer
      // is armed before the attempt is sent (its clock starts at the send), so up to the few ms
      // between the two may not count: a clean-clone CI run read 2668.04 against a bound of 2668.
      assert.ok(lock.validity <= 3000 - 300 - 32 + 10, `validity ${lock.validity}`);
      assert.ok(lock.validity > 3000 - 600, `validity ${lock.validity}`);
      masters.masters[1]!.resume();
      masters.masters[2]!.resume();
    });
  }));

  test('quit() with 2 masters paused waits for what they were sent up to its budget, not again for their connections', timed(8000, async ({ masters }) => {
    const nodeTimeout = 1000;
    await withRedlock(masters.urls, { retryCount: 0, nodeTimeout }, async (redlock) => {
      for (const i of [1, 2]) masters.masters[i]!.pause();
      const lock = await redlock.acquire(['paused-quit'], 5000);
      await lock.release();
      const started = performance.now();
      await redlock.quit();
      const ms = performance.now() - started;
      // The release out on the paused masters times out at nodeTimeout; a closing PING to them would wait twice that again.
      assert.ok(ms < 2 * nodeTimeout, `quit() took ${ms.toFixed(0)} ms`);
      for (const i of [1, 2]) masters.masters[i]!.resume();
    });
  }));

  test('a lock whose quorum answered after its duration is never returned (LockExpiredError), and is cleaned up', timed(8000, async ({ masters }) => {
    await withRedlock(masters.urls, { retryCount: 0, nodeTimeout: 2000 }, async (redlock) => {
      for (const i of [0, 1, 2]) masters.masters[i]!.pause();
      setTimeout(() => {
        masters.masters[0]!.resume();
      }, 250);
      const error = await rejection(redlock.acquire(['too-slow'], 200));
      assert.is(error.code, 'ERR_PIPELOCK_LOCK_EXPIRED');
      masters.masters[1]!.resume();
      masters.masters[2]!.resume();
      await eventually(async () => (await valuesOf(probes, 'too-slow')).every((v) => v === null), 2000, 'no key remains');
    });
  }));

  test('latency and dropped connections on the way to 2 masters: the fast quorum decides, drops recover', timed(15000, async ({ masters }) => {
    const proxies = await Promise.all([FaultProxy.start(masters.urls[0]!), FaultProxy.start(masters.urls[1]!)]);
    try {
      const urls = [proxies[0].url, proxies[1].url, ...masters.urls.slice(2)];
      await withRedlock(urls, { retryCount: 3, retryDelay: 20, nodeTimeout: 1000 }, async (redlock) => {
        for (const proxy of proxies) proxy.delayMs = 300;
        let slowest = 0;
        let stop = false;
        let done = 0;
        const worker = async (w: number): Promise<void> => {
          for (let i = 0; !stop; i++) {
            const started = performance.now();
            const lock = await redlock.acquire([`slow:${w}:${i}`], 5000);
            slowest = Math.max(slowest, performance.now() - started);
            await lock.release();
            done++;
          }
        };
        const workers = Array.from({ length: 8 }, (_, w) => worker(w));
        await eventually(() => done >= 100, 5000, '100 cycles through the slow masters');
        // Acquire returns at the third (fast) vote; release waits for all five, so it is the slow one.
        assert.ok(slowest < 300, `an acquisition waited ${slowest} ms for a slow master`);
        for (const proxy of proxies) proxy.drop();
        const afterDrop = done;
        await eventually(() => done >= afterDrop + 100, 5000, 'operations continue after the drop');
        stop = true;
        await Promise.all(workers);
        for (const proxy of proxies) proxy.delayMs = 0;
        await eventually(() => internals(redlock).masters.nodes.every((node) => node.transport.isReady), 5000, 'the dropped connections come back');
        const lock = await redlock.acquire(['after-drop'], 5000);
        const result = await (await lock.release()).complete();
        assert.is(result.released, 5, 'all five masters serve again');
      });
    } finally {
      await Promise.all(proxies.map((p) => p.close()));
    }
  }));

  test('a contended acquire retries at its own pace past 2 slow masters; only its error waits for the undo', timed(8000, async ({ masters }) => {
    const proxies = await Promise.all([FaultProxy.start(masters.urls[0]!), FaultProxy.start(masters.urls[1]!)]);
    try {
      await withRedlock(masters.urls, {}, async (holder) => {
        const held = await holder.acquire(['contended'], 10_000);
        const urls = [proxies[0].url, proxies[1].url, ...masters.urls.slice(2)];
        await withRedlock(urls, { retryCount: 3, retryDelay: 10, retryJitter: 0, nodeTimeout: 250 }, async (rival) => {
          await eventually(() => internals(rival).masters.nodes.every((node) => node.transport.isReady), 5000, 'every master connected');
          for (const proxy of proxies) proxy.delayMs = 400;
          const started = performance.now();
          const error = await rejection(rival.acquire(['contended'], 5000), ResourceLockedError);
          const elapsed = performance.now() - started;
          assert.is(error.attempts.length, 4);
          assert.equal(error.nodes.slice(2).map((n) => n.vote), ['against', 'against', 'against']);
          // The slow two time out; on a loaded machine the last attempt may start after the first
          // attempt's call there ran past its budget, which marks them stalled: that attempt is not
          // sent to them and reads NodeStalledError (CI read 'error' there once).
          for (const node of error.nodes.slice(0, 2)) {
            if (node.vote === 'error') assert.instance(node.error, NodeStalledError);
            else assert.is(node.vote, 'timeout');
          }
          // Each attempt loses at the fast masters' third 'against'. Its undo on the slow two is queued
          // ahead of the next attempt there, so a retry does not wait for it (4 × 250 ms if it did);
          // the error waits for the last undo's budget.
          assert.ok(elapsed < 3 * 250, `4 attempts took ${elapsed} ms: the retries waited for the slow masters`);
          assert.ok(elapsed >= 240, `the error came after ${elapsed} ms, before its undo's budget ran out`);
        });
        await held.release();
      });
    } finally {
      await Promise.all(proxies.map((p) => p.close()));
    }
  }));

  test('one master SIGSTOPped: attempts split 2–2 among the other four are lost at once, not after its budget', timed(8000, async ({ masters }) => {
    // wakeups off: this counts attempts, and a wake-up (the attempt's own undo deleting its keys
    // races its waiter's first read) may add one within the schedule's time, as the refusal rule allows.
    await withRedlock(masters.urls, { retryCount: 2, retryDelay: 10, retryJitter: 0, nodeTimeout: 300, wakeups: false }, async (redlock) => {
      masters.masters[2]!.pause();
      // A call it leaves unanswered past the budget marks it stalled: the warm-up attempt's stats
      // resolve once master 2's budget ran out, in the same deadline scan that marks it.
      const warm = await redlock.acquire(['warm'], 5000);
      const stats = await warm.attempts[0]!;
      assert.is(stats.votesFor.size, 4);
      assert.instance([...stats.votesAgainst.values()][0], NodeTimeoutError);
      // Another holder has the key on masters 0 and 1 only: every attempt gets 2 for, 2 against, and waits on master 2.
      for (const i of [0, 1]) await probes[i]!.sendCommand(['SET', 'split', 'other', 'PX', '5000']);
      const started = performance.now();
      const error = await rejection(redlock.acquire(['split'], 5000), ResourceLockedError);
      const elapsed = performance.now() - started;
      assert.is(error.attempts.length, 3);
      // The first split attempt probed master 2; the later ones were not sent to it while that probe was out.
      assert.equal(error.nodes.map((n) => n.vote), ['against', 'against', 'error', 'for', 'for']);
      assert.instance(error.nodes[2]!.error, NodeStalledError);
      // Waiting for master 2 would take 3 × 300 ms for the attempts plus 300 ms for the last undo.
      assert.ok(elapsed < 600, `3 split attempts took ${elapsed} ms: they waited for the stalled master`);
      assert.equal(await valuesOf([probes[0]!, probes[1]!, probes[3]!, probes[4]!], 'split'), ['other', 'other', null, null], 'the undo ran on the live masters');
      masters.masters[2]!.resume();
      await warm.release();
      // The stall ends when master 2 answers a probe in time; operations reach it again from then on.
      await eventually(async () => {
        const after = await redlock.acquire(['after-resume'], 5000);
        return (await (await after.release()).complete()).released === 5;
      }, 300, 'the resumed master serves again');
    });
  }));

  test('a SET not yet written when its master died leaves no key behind after the restart', timed(10000, async ({ masters }) => {
    await withRedlock(masters.urls, { retryCount: 0, nodeTimeout: 300 }, async (redlock) => {
      const master = masters.masters[1]!;
      // Kill the master, then, before this process has read that its socket closed, acquire: the
      // SET goes into the client's write queue (written in the check phase) while the close waits
      // in the poll phase that comes first. @redis/client writes that SET once the master is back,
      // after the attempt timed the master out and the release failed on it at once.
      const acquiring = await new Promise<{ lock: Promise<Lock> }>((resolve) => {
        setTimeout(() => {
          const pid = master.pid!;
          process.kill(pid, 'SIGKILL');
          // The kernel closes its sockets when it exits; the zombie it leaves until reaped says so.
          while (!readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ')) { /* spin */ }
          const spun = performance.now() + 20;
          while (performance.now() < spun) { /* and let the close reach this socket */ }
          resolve({ lock: redlock.acquire(['stale-set'], 30000) });
        }, 10);
      });
      const lock = await acquiring.lock;
      const stats = await lock.attempts[0]!;
      assert.is(stats.votesFor.size, 4);
      await lock.release();
      await master.restart();
      await eventually(() => internals(redlock).masters.nodes[1]!.transport.isReady, 5000, 'pipelock reconnected to the restarted master');
      await delay(200);
      const probe = (await connectAll([master.url]))[0]!;
      try {
        assert.is(await probe.sendCommand(['EXISTS', 'stale-set']), 0, 'the SET kept across the restart left its key');
      } finally {
        await closeAll([probe]);
      }
    });
  }));

  test.run();
}
