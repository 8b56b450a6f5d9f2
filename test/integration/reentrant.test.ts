import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { mastersSuite } from '../helpers/masters.js';
import { closeAll, commandCalls, connectAll, landed, valuesOf, type Probe } from '../helpers/redis.js';
import { rejection } from '../helpers/reject.js';
import { timed } from '../helpers/timeout.js';
import { abortedAt } from '../helpers/aborted.js';
import {
  InvalidArgumentError, LockAbortedError, LockLostError, Redlock, ReentrancyError, ReentrantRedlock, ResourceLockedError, type ReentrantLock,
} from '../../src/index.js';

// Reentrant locks: one async context counts, every other owner waits, the masters see one lock.
const test = mastersSuite('reentrant', { count: 5, flushEach: true });

let redlock: Redlock;
let reentrant: ReentrantRedlock;
let other: Redlock;
let probes: Probe[];
test.before(async ({ masters }) => {
  redlock = new Redlock(masters.urls, { retryDelay: 20, retryJitter: 10, retryCount: 200 });
  reentrant = new ReentrantRedlock(redlock);
  other = new Redlock(masters.urls, { retryCount: 0 });
  probes = await connectAll(masters.urls);
});
test.after(async () => {
  await closeAll(probes);
  await Promise.all([redlock.quit(), other.quit()]);
});

/** Every command the masters ran so far (INFO itself excluded): what a "no round trip" claim is checked against. */
async function commands(): Promise<number> {
  return (await commandCalls(probes)).reduce((a, b) => a + b, 0);
}

const held = async (key: string): Promise<number> => (await valuesOf(probes, key)).filter((v) => v !== null).length;

test('a nested using of held resources counts: nothing sent, same token and fence, the key goes on the outermost release', timed(10000, async () => {
  let before = 0;
  let during = 0;
  await reentrant.using(['a', 'b'], 10_000, { fencing: true }, async (outerSignal) => {
    const outer = await reentrant.acquire(['a'], 10_000, { fencing: true });
    await landed(probes, 'a', 'b');
    before = await commands();
    await reentrant.using(['a', 'b'], 10_000, async (signal) => {
      assert.is(signal, outerSignal, 'nested holders see the one shared signal');
      const inner = await reentrant.acquire(['b'], 5_000);
      const innermost = await reentrant.acquire(['a', 'b'], 5_000, { fencing: true });
      assert.is(inner.value, outer.value);
      assert.is(innermost.fence, outer.fence);
      assert.ok(outer.fence! > 0);
      assert.is(innermost.holders, 5);
      assert.not.ok(inner.outermost);
      assert.is(await innermost.release(), undefined);
      assert.is(await inner.release(), undefined);
      assert.is(await inner.release(), undefined, 'a second release of a handle does nothing');
      assert.is(outer.holders, 3);
    });
    await outer.release();
    during = await commands() - before;
    assert.is(await held('a'), 5, 'inner releases leave the key');
  });
  assert.is(during, 0, 'nested acquisitions and releases sent nothing to any master');
  assert.is(await held('a'), 0);
  assert.is(await held('b'), 0);
}));

test('run(): acquire and release count in the context, depth 3; the last (outermost) release deletes', timed(10000, async () => {
  await reentrant.run(async () => {
    const handles: ReentrantLock[] = [];
    for (let depth = 0; depth < 3; depth++) handles.push(await reentrant.acquire(['r'], 10_000));
    assert.equal(handles.map((h) => h.outermost), [true, false, false]);
    assert.is(handles[2]!.holders, 3);
    // Another view of the same Redlock is the same owner's: it counts too.
    const viaOtherView = await new ReentrantRedlock(redlock).acquire(['r'], 10_000);
    assert.is(viaOtherView.holders, 4);
    await viaOtherView.release();
    await handles[2]!.release();
    await handles[1]!.release();
    assert.is(await held('r'), 5);
    const result = await handles[0]!.release();
    assert.ok(result !== undefined && !result.expired);
    assert.is(await held('r'), 0);
  });
}));

test('another context of this process waits for the outermost release; another Redlock is refused meanwhile', timed(10000, async () => {
  const log: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let entered!: () => void;
  const inside = new Promise<void>((resolve) => (entered = resolve));
  const first = reentrant.using(['hot'], 10_000, async () => {
    await reentrant.using(['hot'], 10_000, async () => {
      log.push('A in');
      entered();
      await gate;
      log.push('A out');
    });
  });
  await inside;
  const second = reentrant.run(() => reentrant.using(['hot'], 10_000, async () => {
    log.push('B in');
    await Promise.resolve();
    log.push('B out');
  }));
  await rejection(other.acquire(['hot'], 1_000), ResourceLockedError);
  // B has been refused at least once and is waiting (its retries or a wake-up), not inside.
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(log, ['A in']);
  release();
  await Promise.all([first, second]);
  assert.equal(log, ['A in', 'A out', 'B in', 'B out']);
  assert.is(await held('hot'), 0);
}));

test('a waiting context is woken by the outermost release (wake-ups), not by its 30 s retry delay', timed(10000, async ({ masters }) => {
  const slow = new Redlock(masters.urls, { retryDelay: 30_000, retryJitter: 0, retryCount: 1 });
  const view = new ReentrantRedlock(slow);
  try {
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    let leave!: () => void;
    const gate = new Promise<void>((resolve) => (leave = resolve));
    const first = view.using(['wake'], 10_000, () => view.using(['wake'], 10_000, async () => {
      entered();
      await gate;
    }));
    await inside;
    let refusedOnce = false;
    const second = view.run(async () => {
      const lock = await view.acquire(['wake'], 10_000);
      refusedOnce = (await Promise.all(lock.attempts)).length === 2;
      await lock.release();
    });
    // Time for B's first attempt to be refused (too short only makes B win at once, which fails below, never passes falsely).
    await new Promise((resolve) => setTimeout(resolve, 200));
    leave();
    await Promise.all([first, second]);
    assert.ok(refusedOnce, 'B was refused once, then won on the wake-up (within this test\'s 10 s limit, not after 30 s)');
  } finally {
    await slow.quit();
  }
}));

test('children forked in a context share it: Promise.all children re-enter at once, and one acquisition serves siblings racing for new resources', timed(10000, async () => {
  await reentrant.using(['p'], 10_000, async () => {
    await landed(probes, 'p');
    const before = await commands();
    let peak = 0;
    await Promise.all([1, 2, 3].map(() => reentrant.using(['p'], 10_000, async () => {
      const h = await reentrant.acquire(['p'], 1_000);
      peak = Math.max(peak, h.holders);
      await new Promise((resolve) => setTimeout(resolve, 20));
      await h.release();
    })));
    assert.is(peak, 7, 'the outer, three children and their three nested acquisitions held at once');
    assert.is(await commands() - before, 0);
    // Two siblings ask for `q`, which the context does not hold yet: one goes to the masters, the other waits for it and counts.
    const c0 = await commands();
    const [x, y] = await Promise.all([reentrant.acquire(['q'], 10_000), reentrant.acquire(['q'], 10_000)]);
    assert.is(x.value, y.value);
    assert.equal([x.outermost, y.outermost], [true, false]);
    // The acquisition resolves at quorum; its last SETs may still be on the wire, so count once every master answered.
    await Promise.all(x.attempts);
    assert.is(await commands() - c0, probes.length, 'one acquisition: one command per master (a one-key acquire is a SET)');
    await y.release();
    await x.release();
  });
  assert.is(await held('p') + await held('q'), 0);
}));

test('resources held only in part: ReentrancyError, nothing sent; nesting them separately works', timed(10000, async () => {
  await reentrant.using(['a', 'b'], 10_000, async () => {
    await reentrant.using(['c'], 10_000, async () => {
      await landed(probes, 'a', 'b', 'c');
      const before = await commands();
      for (const resources of [['a', 'x'], ['a', 'c']]) {
        const error = await rejection(reentrant.acquire(resources, 1_000), ReentrancyError);
        assert.equal(error.resources, resources);
        assert.is(error.code, 'ERR_PIPELOCK_REENTRANCY');
      }
      assert.is(await commands() - before, 0);
      const x = await reentrant.acquire(['x'], 10_000);
      assert.ok(x.outermost);
      await x.release();
    });
  });
}));

test('releasing the outermost before a nested holder: ReentrancyError and nothing released', timed(10000, async () => {
  await reentrant.run(async () => {
    const outer = await reentrant.acquire(['o'], 10_000);
    const inner = await reentrant.acquire(['o'], 10_000);
    const error = await rejection(outer.release(), ReentrancyError);
    assert.match(error.message, /1 holder\(s\) nested/);
    assert.is(await held('o'), 5);
    assert.ok(outer.validity > 0);
    await inner.release();
    await outer.release();
    assert.is(await held('o'), 0);
  });
}));

test('a using scope that ends with a nested holder still inside releases, aborts the holder\'s signal and rejects', timed(10000, async () => {
  let escaped!: Promise<unknown>;
  let signalled: unknown;
  const scope = reentrant.using(['e'], 10_000, async () => {
    escaped = reentrant.using(['e'], 10_000, (signal) => new Promise((resolve) => {
      signal.addEventListener('abort', () => {
        signalled = signal.error;
        resolve(undefined);
      });
    }));
    await new Promise((resolve) => setTimeout(resolve, 10));
  });
  const error = await rejection(scope, ReentrancyError);
  assert.is(signalled, error);
  await escaped;
  assert.is(await held('e'), 0);
}));

test('a lost lock aborts every nested holder\'s signal; acquiring it again in that context is refused', timed(10000, async () => {
  // Deleted behind pipelock's back; the renewal (due with a third of 600 ms left) finds it gone on every master.
  await reentrant.using(['lost'], 600, async (outerSignal) => {
    await reentrant.using(['lost'], 600, async (signal) => {
      await Promise.all(probes.map((p) => p.del('lost')));
      await abortedAt(signal);
      assert.ok(outerSignal.aborted);
      assert.instance(signal.error, LockLostError);
      await rejection(reentrant.acquire(['lost'], 1_000), LockLostError);
    });
  });
}));

test('fencing and extend: a nested holder may not ask for a fence the outer lacks, nor extend; the outermost extends in place', timed(10000, async () => {
  await reentrant.run(async () => {
    const outer = await reentrant.acquire(['f'], 2_000);
    await rejection(reentrant.acquire(['f'], 1_000, { fencing: true }), ReentrancyError);
    await rejection(reentrant.acquire(['f'], 1_000, { signal: AbortSignal.abort() }), LockAbortedError);
    assert.is(outer.holders, 1, 'an aborted nested acquisition does not count');
    const inner = await reentrant.acquire(['f'], 1_000);
    await rejection(inner.extend(10_000), ReentrancyError);
    assert.is(await outer.extend(10_000), outer);
    assert.ok(outer.validity > 5_000 && inner.validity > 5_000);
    await inner.release();
    await outer.release();
  });
}));

test('node-redlock code is untouched: a plain nested using of the same resource inside a reentrant scope still waits and fails', timed(10000, async () => {
  await reentrant.using(['v5'], 10_000, async () => {
    await rejection(other.using(['v5'], 1_000, () => Promise.resolve()), ResourceLockedError);
  });
}));

test('bad input: typed errors naming the argument; acquire outside a context is a ReentrancyError', async () => {
  assert.throws(() => new ReentrantRedlock({} as never), (e: unknown) => e instanceof InvalidArgumentError && e.argument === 'redlock');
  await rejection(reentrant.acquire(['z'], 1_000), ReentrancyError);
  const cases: [() => Promise<unknown>, string][] = [
    [() => reentrant.acquire([], 1_000), 'resources'],
    [() => reentrant.acquire(['z'], 0), 'duration'],
    [() => reentrant.acquire(['z'], 1_000, { retryCount: -2 }), 'settings.retryCount'],
    [() => reentrant.acquire(['z'], 1_000, { autoExtend: false }), 'settings.autoExtend'],
    [() => reentrant.using(['z'], 1_000, 'no' as never), 'routine'],
    [() => reentrant.run('no' as never), 'fn'],
  ];
  for (const [call, argument] of cases) {
    const error = await rejection(reentrant.run(call), InvalidArgumentError);
    assert.is(error.argument, argument);
  }
});

test.run();
