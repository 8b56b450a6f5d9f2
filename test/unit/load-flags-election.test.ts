import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { UsageError } from '../../tools/src/cli/errors.js';
import { LOADTEST_USAGE, parseLoadFlags } from '../../tools/src/cli/flags.js';
import { kLoadDefaults, type LoadOptions } from '../../tools/src/load/options.js';

// `pipelock loadtest --kind election`: its flags, and the cycle-run flags it refuses.
const test = suite('load flags --kind election');

function parse(args: string[]): LoadOptions {
  const parsed = parseLoadFlags(args);
  if (parsed === 'help') throw new Error('unexpected help');
  return parsed;
}

function usage(args: string[], flag: string, rule: RegExp): void {
  try {
    parseLoadFlags(args);
  } catch (error) {
    assert.instance(error, UsageError);
    assert.is((error as UsageError).flag, flag);
    assert.is((error as UsageError).code, 'ERR_PIPELOCK_USAGE');
    assert.match((error as UsageError).message, rule);
    return;
  }
  assert.unreachable(`${args.join(' ')} was accepted`);
}

test('--kind election reads --kills, the lease from --lock-duration and a --hold that may outlast it (the lease is renewed)', () => {
  const o = parse(['--kind', 'election', '--kills', '12', '--lock-duration', '1s', '--hold', '1500']);
  assert.equal([o.kind, o.kills, o.lockMs, o.holdMs], ['election', 12, 1000, 1500]);
  assert.is(parse(['--kind', 'election']).kills, kLoadDefaults.kills);
  assert.match(LOADTEST_USAGE, /--kills N/);
  assert.match(LOADTEST_USAGE, /election {4}failover time/);
});

test('--kills out of range or without --kind election is a usage error naming it', () => {
  for (const bad of ['0', '-1', '1.5', 'abc', '10001', '']) usage(['--kind', 'election', '--kills', bad], '--kills', /integer from 1 to 10000/);
  usage(['--kills', '5'], '--kills', /needs --kind election/);
  usage(['--kind', 'semaphore', '--kills', '5'], '--kills', /needs --kind election/);
});

test('the flags of a cycle run conflict with --kind election, each named', () => {
  const cases: [string, string][] = [['--workers', '2'], ['--concurrency', '4'], ['--rate', '10'], ['--duration', '5'], ['--warmup', '0'], ['--keys', '3'],
    ['--retry-count', '1'], ['--retry-delay', '5'], ['--retry-jitter', '5'], ['--operation', 'using'], ['--html', 'a.html'], ['--start-at', `@${Math.round(Date.now() / 1000) + 3600}`]];
  for (const [flag, value] of cases) usage(['--kind', 'election', flag, value], flag, /conflicts with --kind election/);
  usage(['--kind', 'election', '--permits', '3'], '--permits', /needs --kind semaphore/);
});

test('a lease under 100 ms is refused before the run (its renew deadline and retry period would round to nothing)', () => {
  usage(['--kind', 'election', '--lock-duration', '99'], '--lock-duration', /at least 100ms with --kind election/);
  assert.is(parse(['--kind', 'election', '--lock-duration', '100']).lockMs, 100);
});

test.run();
