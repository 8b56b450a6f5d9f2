import '../helpers/setup.js';
import { writeFile } from 'node:fs/promises';
import * as assert from 'uvu/assert';
import { LOADTEST_USAGE } from '../../tools/src/cli/flags.js';
import { defaultSettings, Lock, Redlock } from '../../src/index.js';
import { startMasters, type LocalMasters } from '../../src/testing/masters.js';
import { kMastersDefaults } from '../../src/testing/options.js';
import { BAD_INPUTS, LOADTEST_FLAGS_TRIED, MASTERS_OPTIONS_TRIED, namedBy, show, SYNC_FNS, type BadInputCase, type Env, type Fixture } from '../helpers/bad-inputs.js';
import type { Exit } from '../helpers/cli.js';
import { mastersSuite } from '../helpers/masters.js';
import { closeAll, connectAll, type Probe } from '../helpers/redis.js';
import { timed } from '../helpers/timeout.js';

// Every case of the bad-input table against three real masters: the exact typed error with its code
// and the argument / option / flag it names; no key left on any master; no unhandled rejection.
// Then bench/results/bad-input.json says how many were tried and handled (RELIABILITY.md reads it).
const test = mastersSuite('bad input', { count: 3 });
const kResults = new URL('../../bench/results/bad-input.json', import.meta.url);
const kHeld = 'bad-input:held';

let probes: Probe[] = [];
let redlock: Redlock;
let unhandled = 0;
const countUnhandled = (): void => {
  unhandled++;
};

test.before(async ({ masters }) => {
  process.on('unhandledRejection', countUnhandled);
  probes = await connectAll(masters.urls);
  redlock = new Redlock(masters.urls);
  await redlock.ready();
});
test.after(async () => {
  process.off('unhandledRejection', countUnhandled);
  await redlock.quit();
  await closeAll(probes);
});

async function releaseFully(owner: Redlock, lock: Lock): Promise<void> {
  await (await owner.release(lock)).complete();
}

/** Builds what a case is given; the returned cleanup undoes it (releases, quits, closes). */
async function build(given: Fixture | undefined, masters: LocalMasters): Promise<{ env: Env; cleanup: () => Promise<void> }> {
  const env: Record<string, unknown> = { redlock, urls: masters.urls, client: probes[0] };
  const cleanups: (() => Promise<unknown>)[] = [];
  switch (given) {
    case undefined:
      break;
    case 'lock': {
      const lock = await redlock.acquire([kHeld], 10_000);
      env.lock = lock;
      cleanups.push(() => releaseFully(redlock, lock));
      break;
    }
    case 'foreign lock': {
      const other = new Redlock(masters.urls);
      const lock = await other.acquire([kHeld], 10_000);
      env.foreign = lock;
      cleanups.push(async () => {
        await releaseFully(other, lock);
        await other.quit();
      });
      break;
    }
    case 'released lock': {
      const lock = await redlock.acquire([kHeld], 10_000);
      await releaseFully(redlock, lock);
      env.released = lock;
      break;
    }
    case 'closed redlock': {
      const closing = new Redlock(masters.urls);
      const lock = await closing.acquire([kHeld], 10_000);
      env.closedResult = await (await lock.release()).complete();
      await closing.quit();
      env.closed = closing;
      env.closedLock = lock;
      break;
    }
    case 'closed caller clients': {
      const own = await connectAll(masters.urls);
      const orphaned = new Redlock(own, { retryCount: 0 });
      await orphaned.ready();
      await closeAll(own);
      env.orphaned = orphaned;
      cleanups.push(() => orphaned.quit());
      break;
    }
    case 'closed client': {
      const own = await connectAll([masters.urls[0]!]);
      await closeAll(own);
      env.closedClient = own[0];
      break;
    }
    case 'spare master':
    case 'stopped master':
    case 'paused master':
    case 'closed masters': {
      const spare = await startMasters({ count: 1, handleSignals: false });
      env.spare = spare;
      cleanups.push(() => spare.close());
      if (given === 'stopped master') await spare.masters[0]!.stop();
      if (given === 'paused master') spare.masters[0]!.pause();
      if (given === 'closed masters') await spare.close();
      break;
    }
  }
  return {
    env: env as unknown as Env,
    cleanup: async () => {
      for (const cleanup of cleanups) await cleanup();
    },
  };
}

type Outcome = { threw: true; sync: boolean; error: unknown } | { threw: false; value: unknown };

async function invoke(c: BadInputCase, env: Env): Promise<Outcome> {
  let returned: unknown;
  try {
    returned = c.call(env);
  } catch (error) {
    return { threw: true, sync: true, error };
  }
  try {
    return { threw: false, value: await returned };
  } catch (error) {
    return { threw: true, sync: false, error };
  }
}

/** Whatever a case created by wrongly succeeding must not outlive it (connections, keys, servers). */
async function dispose(value: unknown): Promise<void> {
  if (value instanceof Redlock) await value.quit();
  else if (value instanceof Lock) await (await value.release()).complete();
  else if (typeof value === 'object' && value !== null && 'urls' in value && 'close' in value) await (value as LocalMasters).close();
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.constructor.name} (${String((error as { code?: unknown }).code)}): ${error.message}` : show(error);
}

function judge(c: BadInputCase, outcome: Outcome): void {
  const expect = c.expect;
  if ('error' in expect) {
    if (!outcome.threw) {
      assert.unreachable(`resolved with ${show(outcome.value)} instead of ${expect.error.name}`);
      return;
    }
    const { error, sync } = outcome;
    assert.ok(error instanceof Error && error.constructor === expect.error, `expected ${expect.error.name}, got ${describe(error)}`);
    assert.is(SYNC_FNS.has(c.fn), sync, sync ? 'a promise-returning call threw synchronously' : 'rejected where it should throw');
    assert.is((error as { code?: unknown }).code, expect.code);
    assert.is(namedBy(error), expect.names, `${describe(error)} should name ${String(expect.names)}`);
    c.check?.(error);
    return;
  }
  if (outcome.threw) {
    assert.unreachable(`expected no error (${'resolves' in expect ? expect.resolves : `exit ${expect.exit}`}), got ${describe(outcome.error)}`);
    return;
  }
  if ('exit' in expect) {
    const exit = outcome.value as Exit;
    assert.is(exit.code, expect.exit, exit.stderr);
    assert.match(exit.stderr, expect.stderr);
    assert.is(exit.stdout, '');
  }
  c.check?.(outcome.value);
}

const functions = new Map<string, { tried: number; handled: number }>();
const categories = new Map<string, number>();
for (const c of BAD_INPUTS) {
  const counts = functions.get(c.fn) ?? { tried: 0, handled: 0 };
  counts.tried++;
  functions.set(c.fn, counts);
  categories.set(c.category, (categories.get(c.category) ?? 0) + 1);
}

for (const c of BAD_INPUTS) {
  // A CLI case starts a process that compiles the CLI from source first: seconds on a loaded machine.
  test(`${c.fn} · ${c.category} · ${c.input}`, timed(c.fn === 'pipelock' ? 40_000 : 10_000, async ({ masters }) => {
    const before = unhandled;
    const { env, cleanup } = await build(c.given, masters);
    let outcome: Outcome;
    try {
      outcome = await invoke(c, env);
    } finally {
      await cleanup();
    }
    if (!outcome.threw) await dispose(outcome.value);
    judge(c, outcome);
    // A rejection nobody handled is reported once the microtasks of its turn have run.
    await new Promise((resolve) => setImmediate(resolve));
    const keys = await Promise.all(probes.map((probe) => probe.dbSize()));
    assert.equal(keys, probes.map(() => 0), 'a key was left behind');
    assert.is(unhandled, before, 'an unhandled rejection during the case');
    functions.get(c.fn)!.handled++;
  }));
}

test('the table covers every setting, startMasters option and loadtest flag there is', () => {
  const tried = (fn: string, prefix: string): Set<string> => new Set(BAD_INPUTS.filter((c) => c.fn === fn).map((c) => /^[\w.-]+/.exec(c.input.slice(prefix.length))?.[0] ?? ''));
  const settings = tried('new Redlock', 'settings.');
  for (const name of Object.keys(defaultSettings)) assert.ok(settings.has(name), `settings.${name}`);
  for (const name of Object.keys(kMastersDefaults)) assert.ok(MASTERS_OPTIONS_TRIED.includes(name), `startMasters ${name}`);
  for (const [flag] of LOADTEST_USAGE.matchAll(/(?<=^ {2})--[a-z-]+/gm)) {
    assert.ok(flag === '--help' || LOADTEST_FLAGS_TRIED.includes(flag), `loadtest ${flag}`);
  }
});

function sorted<V>(entries: Iterable<[string, V]>): Record<string, V> {
  return Object.fromEntries([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

test('bench/results/bad-input.json: what was tried and handled, deterministic', async () => {
  let tried = 0;
  let handled = 0;
  for (const counts of functions.values()) {
    tried += counts.tried;
    handled += counts.handled;
  }
  const cliFlags = BAD_INPUTS.filter((c) => c.fn.startsWith('pipelock')).length;
  // Inputs whose documented answer is a result, not an error (release twice, quit twice, …).
  const resolving = BAD_INPUTS.filter((c) => 'resolves' in c.expect).length;
  const result = sorted(Object.entries({
    format: 'pipelock-bad-input',
    version: 1,
    tried,
    handled,
    functions: sorted([...functions].map(([fn, counts]) => [fn, { handled: counts.handled, tried: counts.tried }])),
    categories: sorted(categories),
    cliFlags,
    resolving,
  }));
  await writeFile(kResults, `${JSON.stringify(result, null, 2)}\n`);
  assert.is(handled, tried, `${tried - handled} of ${tried} bad inputs were not handled (see the failures above)`);
});

test.run();
