import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  InvalidOptionError,
  MasterStartError,
  MasterStateError,
  RedisServerNotFoundError,
} from '../../src/testing/errors.js';
import { kMastersDefaults, resolveDelayMs, resolveMastersOptions, resolveRestartOptions } from '../../src/testing/options.js';
import { masterUrl, serverArgs } from '../../src/testing/server-args.js';

const test = suite('local masters: arguments and options');

test('serverArgs: an independent, non-persistent master in its own dir', () => {
  assert.equal(serverArgs(40123, '127.0.0.1', '/tmp/pipelock-abc'), [
    '--port', '40123',
    '--bind', '127.0.0.1',
    '--save', '',
    '--appendonly', 'no',
    '--dir', '/tmp/pipelock-abc',
    '--daemonize', 'no',
    '--protected-mode', 'no',
    '--loglevel', 'warning',
  ]);
});

test('serverArgs: extra arguments go last, verbatim', () => {
  assert.equal(serverArgs(1, '::1', '/d', ['--maxmemory', '10mb', '--hz', '100']).slice(-6), [
    '--loglevel', 'warning',
    '--maxmemory', '10mb',
    '--hz', '100',
  ]);
});

test('masterUrl: brackets an IPv6 host', () => {
  assert.is(masterUrl('127.0.0.1', 40123), 'redis://127.0.0.1:40123');
  assert.is(masterUrl('::1', 40123), 'redis://[::1]:40123');
});

test('resolveMastersOptions: defaults, with PIPELOCK_REDIS_SERVER read at call time', () => {
  const saved = process.env.PIPELOCK_REDIS_SERVER;
  try {
    delete process.env.PIPELOCK_REDIS_SERVER;
    assert.equal(resolveMastersOptions(), { ...kMastersDefaults, extraArgs: [] });
    process.env.PIPELOCK_REDIS_SERVER = '/opt/redis/bin/redis-server';
    assert.is(resolveMastersOptions().redisServer, '/opt/redis/bin/redis-server');
    assert.is(resolveMastersOptions({ redisServer: '/x/redis-server' }).redisServer, '/x/redis-server');
  } finally {
    if (saved === undefined) delete process.env.PIPELOCK_REDIS_SERVER;
    else process.env.PIPELOCK_REDIS_SERVER = saved;
  }
});

test('resolveMastersOptions: the result is frozen and owns its extraArgs', () => {
  const extraArgs = ['--hz', '100'];
  const resolved = resolveMastersOptions({ count: 3, extraArgs });
  extraArgs.push('--mutated');
  assert.equal(resolved.extraArgs, ['--hz', '100']);
  assert.ok(Object.isFrozen(resolved));
  assert.ok(Object.isFrozen(resolved.extraArgs));
});

test('resolveMastersOptions: env is copied and frozen', () => {
  const env = { FAKETIME: '%' };
  const resolved = resolveMastersOptions({ env });
  env.FAKETIME = 'mutated';
  assert.equal(resolved.env, { FAKETIME: '%' });
  assert.ok(Object.isFrozen(resolved.env));
});

const invalid: [options: Record<string, unknown>, message: string][] = [
  [{ count: 0 }, 'count must be an integer from 1 to 64, got 0'],
  [{ count: 65 }, 'count must be an integer from 1 to 64, got 65'],
  [{ count: 2.5 }, 'count must be an integer from 1 to 64, got 2.5'],
  [{ count: '5' }, 'count must be an integer from 1 to 64, got "5"'],
  [{ host: '' }, 'host must be a non-empty string, got ""'],
  [{ redisServer: 42 }, 'redisServer must be a non-empty string, got 42'],
  [{ extraArgs: ['--hz', 100] }, 'extraArgs must be an array of strings, got an array'],
  [{ extraArgs: '--hz 100' }, 'extraArgs must be an array of strings, got "--hz 100"'],
  [{ env: { LD_PRELOAD: 1 } }, 'env must be an object of string values, got an object'],
  [{ env: ['A=1'] }, 'env must be an object of string values, got an array'],
  [{ startTimeoutMs: 0 }, 'startTimeoutMs must be a positive finite number, got 0'],
  [{ startTimeoutMs: Infinity }, 'startTimeoutMs must be a positive finite number, got Infinity'],
  [{ handleSignals: 'yes' }, 'handleSignals must be a boolean, got "yes"'],
];

test('resolveMastersOptions: each broken rule names its option', () => {
  for (const [options, message] of invalid) {
    const option = Object.keys(options)[0]!;
    try {
      resolveMastersOptions(options);
      assert.unreachable(`accepted ${option}`);
    } catch (error) {
      assert.instance(error, InvalidOptionError);
      assert.is((error as InvalidOptionError).option, option);
      assert.is((error as Error).message, message);
    }
  }
});

test('resolveDelayMs: absent is 0; negative, non-finite or past the longest timer is rejected', () => {
  assert.is(resolveDelayMs(undefined), 0);
  assert.is(resolveDelayMs(250), 250);
  assert.throws(() => resolveDelayMs(-1), /^delayMs must be a finite number from 0 to 2147483647, got -1$/);
  assert.throws(() => resolveDelayMs(NaN), /^delayMs must be a finite number from 0 to 2147483647, got NaN$/);
  assert.throws(() => resolveDelayMs(2 ** 31), /^delayMs must be a finite number from 0 to 2147483647, got 2147483648$/);
});

test('options objects: a non-object or an unknown option is named, not ignored', () => {
  for (const bad of [null, 'x', 5, []]) {
    assert.throws(() => resolveMastersOptions(bad as never), (error: unknown) => error instanceof InvalidOptionError && error.option === 'options');
    assert.throws(() => resolveRestartOptions(bad), (error: unknown) => error instanceof InvalidOptionError && error.option === 'options');
  }
  // uvu's throws() takes a string as its failure message, not as the expected one: match with a RegExp.
  assert.throws(() => resolveMastersOptions({ cuont: 3 } as never), /^cuont must be a known option \(count, host, redisServer, extraArgs, env, startTimeoutMs, handleSignals\), got 3$/);
  assert.throws(() => resolveRestartOptions({ delay: 5 }), /^delay must be a known option \(delayMs, redisServer\), got 5$/);
  assert.throws(() => resolveRestartOptions({ redisServer: '' }), /redisServer/);
  assert.is(resolveMastersOptions({ count: undefined, cuont: undefined } as never).count, 5);
  assert.equal(resolveRestartOptions(undefined), { delayMs: 0, redisServer: undefined });
  assert.equal(resolveRestartOptions({ delayMs: 10, redisServer: 'valkey-server' }), { delayMs: 10, redisServer: 'valkey-server' });
});

test('errors: name, stable code and base class', () => {
  const table: [Error, string, string, ErrorConstructor][] = [
    [new RedisServerNotFoundError('redis-server'), 'RedisServerNotFoundError', 'ERR_REDIS_SERVER_NOT_FOUND', Error],
    [new MasterStartError('exited', 1, ''), 'MasterStartError', 'ERR_MASTER_START_FAILED', Error],
    [new InvalidOptionError('count', 'an integer', 0), 'InvalidOptionError', 'ERR_INVALID_OPTION', TypeError],
    [new MasterStateError('paused'), 'MasterStateError', 'ERR_MASTER_STATE', Error],
  ];
  for (const [error, name, code, base] of table) {
    assert.is(error.name, name);
    assert.is((error as Error & { code: string }).code, code);
    assert.instance(error, base);
  }
});

test('errors: RedisServerNotFoundError says how to install, and keeps its cause', () => {
  const cause = new Error('spawn redis-server ENOENT');
  const error = new RedisServerNotFoundError('redis-server', { cause });
  assert.is(
    error.message,
    'redis-server not found: could not execute "redis-server"; ' +
      'install it (apt-get install redis-server) or set PIPELOCK_REDIS_SERVER=/path/to/redis-server',
  );
  assert.is(error.cause, cause);
});

test.run();
