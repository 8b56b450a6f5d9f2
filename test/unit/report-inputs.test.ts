import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { UsageError } from '../../tools/src/cli/errors.js';
import { parseLoadFlags } from '../../tools/src/cli/flags.js';
import { LateStartError, untilWallClock } from '../../tools/src/load/start-at.js';
import { syntheticRun } from '../helpers/results.js';

const test = suite('report inputs');

function usage(args: string[]): UsageError {
  try {
    parseLoadFlags(args);
  } catch (error) {
    assert.instance(error, UsageError);
    return error as UsageError;
  }
  throw new Error('expected a UsageError');
}

test('--start-at: ISO 8601 with a zone or @epoch seconds, in the future and within 24 h', () => {
  const at = Math.ceil(Date.now() / 1000) * 1000 + 60_000;
  for (const value of [new Date(at).toISOString(), new Date(at).toISOString().replace('.000Z', 'Z'), `@${at / 1000}`]) {
    const options = parseLoadFlags(['--start-at', value]);
    assert.ok(options !== 'help');
    assert.is(options.startAt, at, value);
  }
  const cases: [string, string][] = [
    ['2030-01-01T12:00:00', 'ISO 8601 time with a zone'], ['tomorrow', 'ISO 8601 time with a zone'], ['@abc', 'ISO 8601'],
    [new Date(Date.now() - 1000).toISOString(), 'must be in the future'], [`@${Math.round(Date.now() / 1000) + 2 * 86_400}`, 'within 24 h'],
  ];
  for (const [value, fragment] of cases) {
    const error = usage(['--start-at', value]);
    assert.is(error.flag, '--start-at');
    assert.ok(error.message.includes(fragment) && error.message.includes(JSON.stringify(value)), error.message);
  }
});

test('a --start-at already past when the workers are ready fails the run with LateStartError', async () => {
  try {
    await untilWallClock(Date.now() - 1500, new AbortController().signal);
    assert.unreachable('should throw');
  } catch (error) {
    assert.instance(error, LateStartError);
    assert.is((error as LateStartError).code, 'ERR_PIPELOCK_LATE_START');
    assert.match((error as Error).message, /had passed when the workers were ready .*1\.5 s late/);
  }
});

test('timeline: seconds past warm-up + duration, and a stopped run\'s last second, are partial', () => {
  // syntheticRun: 2 s warm-up, 3 s measured, then the stub second a worker reports after its loop.
  const run = syntheticRun({ seconds: 3 });
  assert.equal(run.timeline.map((p) => [p.second, p.partial]), [[1, false], [2, false], [3, false], [4, false], [5, false], [6, true]]);
  // A tick due at the warm-up's last millisecond that rang just after it still closes a warm-up second.
  const late = syntheticRun({ seconds: 3, flags: { warmupMs: 3_000 }, warmupTicks: 2 });
  assert.equal(late.timeline.filter((p) => p.warmup).map((p) => p.second), [1, 2, 3]);
  const stopped = syntheticRun({ seconds: 3, interrupted: true, flags: { durationMs: 60_000 } });
  assert.equal(stopped.timeline.filter((p) => p.partial).map((p) => p.second), [6]);
});

test.run();
