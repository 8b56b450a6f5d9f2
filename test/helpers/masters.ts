import { suite, type Test } from 'uvu';
import { startMasters, type LocalMasters, type StartMastersOptions } from '../../src/testing/masters.js';
import { closeAll, connectAll, type Probe } from './redis.js';

export interface MastersContext {
  masters: LocalMasters;
}

export interface MastersFixtureOptions extends StartMastersOptions {
  /** Before each test, resume paused masters and restart stopped ones. @default false */
  healEach?: boolean;
  /** Before each test (after healing), FLUSHALL every master. @default false */
  flushEach?: boolean;
}

/** A suite whose context holds `masters`, started before its first test and closed after its last. */
export function mastersSuite(name: string, options?: MastersFixtureOptions): Test<MastersContext> {
  const test = suite(name, mastersContext());
  useMasters(test, options);
  return test;
}

/**
 * Adds the masters hooks to an existing suite (whose context came from `mastersContext()`).
 * uvu runs `after` hooks in a `finally`, so the servers stop even when tests fail or time out.
 * Masters start before the suite's own `before` hooks and stop after its own `after` hooks.
 */
export function useMasters<T extends MastersContext>(test: Test<T>, options: MastersFixtureOptions = {}): void {
  const { healEach = false, flushEach = false, ...startOptions } = options;
  let started: LocalMasters | undefined;
  test.before(async (context) => {
    try {
      started = await startMasters(startOptions);
    } catch (error) {
      // uvu 0.5 swallows a `before` hook's error (its runner returns from `finally`); say it here.
      console.error(`\n  ✘ ${context.__suite__}: starting masters failed:`, error);
      throw error;
    }
    context.masters = started;
  });
  if (healEach || flushEach) {
    test.before.each(async (context) => {
      if (healEach) await healAll(context.masters);
      if (flushEach) await flushAll(context.masters);
    });
  }
  // uvu runs hooks in the order they were added, and the suite's own `after` hooks (quitting its
  // clients) still need live servers: so the teardown is added last, when the suite is run.
  const run = test.run.bind(test);
  test.run = () => {
    test.after(async () => {
      await started?.close();
      started = undefined;
    });
    run();
  };
}

/** A context whose `masters` throws a clear error until the fixture has started them. */
export function mastersContext(): MastersContext {
  let current: LocalMasters | undefined;
  return {
    get masters(): LocalMasters {
      if (current === undefined) throw new Error('masters are not started: the suite\'s before hook failed or has not run');
      return current;
    },
    set masters(value: LocalMasters) {
      current = value;
    },
  };
}

/** FLUSHALL on every master, in parallel. */
export async function flushAll(masters: LocalMasters): Promise<void> {
  await Promise.all(masters.masters.map((master) => master.flush()));
}

/** Undoes fault injection left by a test: resumes paused masters and restarts stopped ones. */
export async function healAll(masters: LocalMasters): Promise<void> {
  await Promise.all(
    masters.masters.map(async (master) => {
      if (master.paused) master.resume();
      if (!master.running) await master.restart();
    }),
  );
}

/**
 * Plain connections to every master (test/helpers/redis.ts), opened before each test of `test` and
 * closed after it. The array is refilled in place, so it can be held as a const.
 */
export function probesEach<T extends MastersContext>(test: Test<T>): Probe[] {
  const probes: Probe[] = [];
  test.before.each(async ({ masters }) => {
    probes.push(...(await connectAll(masters.urls)));
  });
  test.after.each(async () => {
    await closeAll(probes.splice(0));
  });
  return probes;
}
