import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { throwsInvalid } from '../helpers/reject.js';
import { kDefaults, resolveSettings, validateDuration, validateResources } from '../../src/settings.js';
import { plainCall, resolveCall } from '../../src/lifecycle/call.js';

const test = suite('options');

test('defaults are node-redlock v5 defaults, frozen', () => {
  assert.equal(
    { ...kDefaults },
    { driftFactor: 0.01, retryCount: 10, retryDelay: 200, retryJitter: 100, automaticExtensionThreshold: 500, nodeTimeout: 250, maxExtensions: Infinity, maxHoldTime: Infinity, renewalWindow: 25, chunkSize: 256, acquireTimeout: Infinity, coalesce: true, wakeups: true, watchHeld: false, commands: 'auto', renewal: 'main', heartbeatBound: 10_000, strict: false, connection: 'auto' },
  );
  assert.ok(Object.isFrozen(kDefaults));
  assert.is(resolveSettings(undefined), kDefaults);
});

test('given settings override defaults; undefined values are ignored', () => {
  const s = resolveSettings({ retryCount: -1, retryDelay: 0, driftFactor: undefined });
  assert.is(s.retryCount, -1);
  assert.is(s.retryDelay, 0);
  assert.is(s.driftFactor, 0.01);
  assert.ok(Object.isFrozen(s));
});

const BAD: [Record<string, unknown>, string][] = [
  [{ driftFactor: -0.1 }, 'settings.driftFactor'],
  [{ driftFactor: 1 }, 'settings.driftFactor'],
  [{ driftFactor: NaN }, 'settings.driftFactor'],
  [{ retryCount: -2 }, 'settings.retryCount'],
  [{ retryCount: 1.5 }, 'settings.retryCount'],
  [{ retryCount: '3' }, 'settings.retryCount'],
  [{ retryDelay: -1 }, 'settings.retryDelay'],
  [{ retryDelay: Infinity }, 'settings.retryDelay'],
  [{ retryDelay: 2 ** 31 }, 'settings.retryDelay'],
  [{ retryJitter: 2 ** 31 }, 'settings.retryJitter'],
  [{ nodeTimeout: 2 ** 31 }, 'settings.nodeTimeout'],
  [{ retryJitter: NaN }, 'settings.retryJitter'],
  [{ automaticExtensionThreshold: -5 }, 'settings.automaticExtensionThreshold'],
  [{ nodeTimeout: 0 }, 'settings.nodeTimeout'],
  [{ maxExtensions: -1 }, 'settings.maxExtensions'],
  [{ chunkSize: 0 }, 'settings.chunkSize'],
  [{ chunkSize: 1e6 }, 'settings.chunkSize'],
  [{ coalesce: 1 }, 'settings.coalesce'],
  [{ retryCont: 3, strict: true }, 'settings.retryCont'],
  [{ strict: 'yes' }, 'settings.strict'],
];
for (const [settings, argument] of BAD) {
  test(`rejects ${JSON.stringify(settings)} naming ${argument}`, () => { throwsInvalid(() => resolveSettings(settings), argument); });
}

/** The process warnings emitted while `fn` runs, as `code: message`. */
async function warnings(fn: () => void): Promise<string[]> {
  const heard: string[] = [];
  const listener = (warning: Error & { code?: string }): void => { heard.push(`${warning.code ?? ''}: ${warning.message}`); };
  process.on('warning', listener);
  try {
    fn();
    // process.emitWarning emits on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', listener);
  }
  return heard;
}

test('a name pipelock does not know warns once per name and is ignored, as node-redlock ignored it', async () => {
  const heard = await warnings(() => {
    const s = resolveSettings({ retryCount: 2, lockPrefix: 'x', retryCont: 1 });
    assert.is(s.retryCount, 2);
    assert.not.ok('lockPrefix' in s);
    resolveSettings({ lockPrefix: 'y' });
    resolveCall(s, plainCall(s), { lockPrefix: 'z' });
  });
  assert.equal(heard, [
    'PIPELOCK_UNKNOWN_SETTING: settings.lockPrefix is not a pipelock setting and is ignored (docs/settings.md; strict: true makes this an error)',
    'PIPELOCK_UNKNOWN_SETTING: settings.retryCont is not a pipelock setting and is ignored (docs/settings.md; strict: true makes this an error)',
  ]);
});

test('strict: an unknown name throws, in the constructor and in every call of a strict instance', () => {
  throwsInvalid(() => resolveSettings({ strict: true, lockPrefix: 'x' }), 'settings.lockPrefix');
  const strict = resolveSettings({ strict: true });
  throwsInvalid(() => resolveCall(strict, plainCall(strict), { lockPrefix: 'x' }), 'settings.lockPrefix');
  throwsInvalid(() => resolveCall(kDefaults, plainCall(kDefaults), { strict: true }), 'settings.strict');
});

test('a name pipelock takes elsewhere throws in the wrong place, strict or not', () => {
  throwsInvalid(() => resolveSettings({ signal: new AbortController().signal }), 'settings.signal');
  throwsInvalid(() => resolveCall(kDefaults, plainCall(kDefaults), { clientOptions: {} }), 'settings.clientOptions');
});

test('settings must be an object', () => {
  throwsInvalid(() => resolveSettings(null), 'settings');
  throwsInvalid(() => resolveSettings([]), 'settings');
  throwsInvalid(() => resolveSettings(5), 'settings');
});

test('per-call settings: allowed keys only, signal must be an AbortSignal', () => {
  const plain = plainCall(kDefaults);
  const signal = new AbortController().signal;
  const call = resolveCall(kDefaults, plain, { retryCount: 0, signal });
  assert.is(call.settings.retryCount, 0);
  assert.is(call.signal, signal);
  throwsInvalid(() => resolveCall(kDefaults, plain, { chunkSize: 5 }), 'settings.chunkSize');
  throwsInvalid(() => resolveCall(kDefaults, plain, { signal: {} }), 'settings.signal');
  throwsInvalid(() => resolveCall(kDefaults, plain, { fencing: 'yes' }), 'settings.fencing');
  throwsInvalid(() => resolveCall(kDefaults, plain, { onLockLost: 1 }), 'settings.onLockLost');
});

test('per-call settings are resolved once, and the numbers copied only when a call overrides one', () => {
  const plain = plainCall(kDefaults);
  assert.is(resolveCall(kDefaults, plain, undefined), plain);
  const onLockLost = (): void => undefined;
  const flags = resolveCall(kDefaults, plain, { signal: new AbortController().signal, autoExtend: true, fencing: true, onLockLost, retryCount: undefined });
  assert.is(flags.settings, kDefaults, 'flags and a signal alone reuse the instance settings');
  assert.equal([flags.autoExtend, flags.fencing, flags.onLockLost], [true, true, onLockLost]);
  const numbers = resolveCall(kDefaults, plain, { nodeTimeout: 50 });
  assert.is.not(numbers.settings, kDefaults);
  assert.is(numbers.settings.nodeTimeout, 50);
  assert.is(numbers.settings.retryCount, kDefaults.retryCount);
  assert.equal([numbers.autoExtend, numbers.fencing, numbers.onLockLost], [false, false, undefined]);
});

test('resources: non-empty array of distinct non-empty strings', () => {
  validateResources(['a']);
  validateResources(['a', 'b', 'c']);
  throwsInvalid(() => { validateResources('a'); }, 'resources');
  throwsInvalid(() => { validateResources([]); }, 'resources');
  throwsInvalid(() => { validateResources(['a', 3]); }, 'resources[1]');
  throwsInvalid(() => { validateResources(['a', '']); }, 'resources[1]');
  throwsInvalid(() => { validateResources(['a', 'b', 'a']); }, 'resources[2]');
});

test('duration: positive safe integer', () => {
  validateDuration(1);
  for (const bad of [0, -1, 1.5, NaN, Infinity, 2 ** 53, '100', undefined]) throwsInvalid(() => { validateDuration(bad); }, 'duration');
});

test.run();
