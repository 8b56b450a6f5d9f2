import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { UsageError } from '../../tools/src/cli/errors.js';
import { LOADTEST_USAGE, parseLoadFlags } from '../../tools/src/cli/flags.js';
import { kLoadDefaults, OPERATIONS, type LoadOptions } from '../../tools/src/load/options.js';

const test = suite('load flags');

function parse(args: string[]): LoadOptions {
  const parsed = parseLoadFlags(args);
  if (parsed === 'help') throw new Error('unexpected help');
  return parsed;
}

test('no flags: the frozen defaults (embedded 5 masters, closed loop, 10 s after 2 s warm-up)', () => {
  const options = parse([]);
  assert.equal(options, kLoadDefaults);
  assert.ok(Object.isFrozen(options));
  assert.equal([options.masters, options.rate, options.durationMs, options.warmupMs, options.operation], [5, 0, 10_000, 2_000, 'acquire-release']);
});

test('every flag is read once into its option; times take units, bare numbers their flag\'s unit', () => {
  const o = parse([
    '--servers', 'redis://a:1,rediss://user:pw@b:2', '--workers', '3', '--rate', '250.5', '--duration', '1500ms',
    '--warmup', '0', '--keys', '1', '--hold', '0.5s', '--lock-duration', '2000', '--retry-count', '-1',
    '--retry-delay', '5', '--retry-jitter', '0ms', '--operation', 'acquire-extend-release', '--json', 'a.json', '--html', 'a.html',
  ]);
  assert.equal(o.servers, ['redis://a:1', 'rediss://user:pw@b:2']);
  assert.equal(
    [o.workers, o.rate, o.durationMs, o.warmupMs, o.keys, o.holdMs, o.lockMs, o.retryCount, o.retryDelayMs, o.retryJitterMs, o.operation, o.json, o.html],
    [3, 250.5, 1500, 0, 1, 500, 2000, -1, 5, 0, 'acquire-extend-release', 'a.json', 'a.html'],
  );
  assert.is(parse(['--duration', '2m']).durationMs, 120_000);
  assert.is(parse(['--concurrency=7']).concurrency, 7);
});

test('--help returns help; the usage documents every flag and operation', () => {
  assert.is(parseLoadFlags(['--help']), 'help');
  for (const flag of ['--servers', '--masters', '--workers', '--concurrency', '--rate', '--duration', '--warmup', '--keys', '--hold', '--lock-duration', '--retry-count', '--retry-delay', '--retry-jitter', '--operation', '--json', '--html']) {
    assert.ok(LOADTEST_USAGE.includes(flag), flag);
  }
  for (const operation of OPERATIONS) assert.ok(LOADTEST_USAGE.includes(operation), operation);
});

// [args, the flag the error must name, a fragment of its rule]
const BAD: [string[], string, string][] = [
  [['--nope'], '--nope', 'is not a loadtest flag'],
  [['stray'], 'stray', 'is not a flag'],
  [['--workers'], '--workers', 'needs a value'],
  [['--help=1'], '--help', 'takes no value'],
  [['--servers', 'http://x:1'], '--servers', 'redis:// or rediss://'],
  [['--servers', 'redis://a:1,,redis://b:2'], '--servers', 'entry 2'],
  [['--servers', 'redis://a:1,redis://a:1'], '--servers', 'must not repeat'],
  [['--masters', '0'], '--masters', 'from 1 to 64'],
  [['--masters', '65'], '--masters', 'from 1 to 64'],
  [['--workers', '0'], '--workers', 'from 1 to 256'],
  [['--workers', '1.5'], '--workers', 'integer'],
  [['--concurrency', 'x'], '--concurrency', 'integer'],
  [['--rate', '0'], '--rate', 'number > 0'],
  [['--rate', 'fast'], '--rate', 'number > 0'],
  [['--duration', '0'], '--duration', 'time from 1ms'],
  [['--duration', '10h'], '--duration', 'e.g. 10s'],
  [['--duration', '100000'], '--duration', 'to 24h'],
  [['--warmup', '-1'], '--warmup', 'time from 0ms'],
  [['--keys', '0'], '--keys', 'from 1 to'],
  [['--hold', 'abc'], '--hold', 'time'],
  [['--lock-duration', '0'], '--lock-duration', 'time from 1ms'],
  [['--retry-count', '-2'], '--retry-count', 'from -1'],
  [['--retry-delay', '-5'], '--retry-delay', 'time from 0ms'],
  [['--retry-jitter', '1x'], '--retry-jitter', 'time'],
  [['--operation', 'lock'], '--operation', 'one of acquire-release, acquire-extend-release, using, renew-hold'],
  [['--json', ''], '--json', 'must name a file'],
  [['--html', ' '], '--html', 'must name a file'],
  [['--servers', 'redis://a:1', '--masters', '3'], '--masters', 'conflicts with --servers'],
  [['--rate', '10', '--concurrency', '4'], '--rate', 'conflicts with --concurrency'],
  [['--rate', '10', '--operation', 'renew-hold'], '--rate', 'conflicts with --operation renew-hold'],
  [['--operation', 'renew-hold', '--hold', '5'], '--hold', 'conflicts with --operation renew-hold'],
  [['--operation', 'using', '--lock-duration', '600'], '--lock-duration', 'at least 601ms'],
  [['--hold', '5s', '--lock-duration', '5s'], '--hold', 'shorter than --lock-duration'],
  [['--json', 'x', '--html', 'x'], '--html', 'conflicts with --json'],
  [['--kind', 'spinlock'], '--kind', 'one of mutex, reentrant'],
  [['--kind', 'reentrant', '--depth', '0'], '--depth', 'from 1 to 1000'],
  [['--depth', '3'], '--depth', 'needs --kind reentrant'],
  [['--kind', 'reentrant', '--operation', 'using'], '--kind', 'conflicts with --operation using'],
];

test('--kind: mutex by default (depth unused), reentrant with --depth (default 2)', () => {
  assert.equal([parse([]).kind, parse(['--kind', 'mutex']).kind], ['mutex', 'mutex']);
  assert.equal([parse(['--kind', 'reentrant']).depth, parse(['--kind', 'reentrant', '--depth', '5']).depth], [2, 5]);
  assert.ok(LOADTEST_USAGE.includes('--kind') && LOADTEST_USAGE.includes('--depth'));
});

for (const [args, flag, rule] of BAD) {
  test(`${args.join(' ')} → UsageError naming ${flag}`, () => {
    try {
      parseLoadFlags(args);
    } catch (error) {
      assert.instance(error, UsageError);
      const usage = error as UsageError;
      assert.is(usage.code, 'ERR_PIPELOCK_USAGE');
      assert.is(usage.flag, flag);
      assert.ok(usage.message.startsWith(flag), usage.message);
      assert.ok(usage.message.includes(rule), `${usage.message} should include ${rule}`);
      return;
    }
    assert.unreachable(`expected a UsageError for ${args.join(' ')}`);
  });
}

test('a password in --servers never appears in a message', () => {
  try {
    parseLoadFlags(['--servers', 'redis://u:secret@a:1,redis://u:secret@a:1']);
  } catch (error) {
    assert.not.ok((error as Error).message.includes('secret'));
    return;
  }
  assert.unreachable();
});

test('--kind and --permits: the lock kind of every cycle; --permits only with --kind semaphore', () => {
  assert.equal([kLoadDefaults.kind, kLoadDefaults.permits], ['mutex', 8]);
  const o = parse(['--kind', 'semaphore', '--permits', '3']);
  assert.equal([o.kind, o.permits], ['semaphore', 3]);
  assert.is(parse(['--kind', 'rw']).kind, 'rw');
  for (const [args, flag] of [[['--kind', 'reentrant-ish'], '--kind'], [['--permits', '3'], '--permits'], [['--kind', 'semaphore', '--permits', '0'], '--permits'], [['--kind', 'semaphore', '--permits', '2000'], '--permits']] as const) {
    try {
      parse([...args]);
      assert.unreachable(`${args.join(' ')} was accepted`);
    } catch (error) {
      assert.instance(error, UsageError);
      assert.ok((error as Error).message.includes(flag), (error as Error).message);
    }
  }
  assert.match(LOADTEST_USAGE, /--kind KIND/);
  assert.match(LOADTEST_USAGE, /--permits N/);
});

test.run();
