import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { hostLine, type HostLine } from '../../tools/src/load/host.js';
import { settingsTable } from '../../tools/src/load/html-tables.js';
import { runLabel } from '../../tools/src/load/html.js';
import type { RunResult } from '../../tools/src/load/result.js';

/** What the HTML report calls a run and which settings it lists: what a reader of one report needs. */
const test = suite('report labels');

function result(flags: HostLine['flags'], runs = 1): RunResult {
  return { runs, hosts: [hostLine(['7.0.15'], flags, new Date(0))] } as unknown as RunResult;
}

test('a run is labelled by its lock kind, operation and load, not "run"', () => {
  assert.is(runLabel(result({ kind: 'mutex', operation: 'acquire-release', concurrency: 16, rate: 0, keys: 10_000 })), 'mutex acquire-release, concurrency 16, 10000 keys');
  assert.is(runLabel(result({ kind: 'semaphore', operation: 'using', concurrency: 16, rate: 2000, keys: 1 })), 'semaphore using, 2000/s open loop, 1 keys');
  assert.is(runLabel(result({}, 3)), '3 runs merged');
});

test('the settings table lists --permits and --depth only for the kind they belong to', () => {
  const mutex = settingsTable([{ label: 'a', result: result({ kind: 'mutex', operation: 'acquire-release', permits: 8, depth: 1 }) }]);
  assert.ok(mutex.includes('--operation'));
  assert.not.ok(mutex.includes('--permits'), 'no --permits for a mutex run');
  assert.not.ok(mutex.includes('--depth'), 'no --depth for a mutex run');
  const both = settingsTable([
    { label: 'a', result: result({ kind: 'semaphore', permits: 8, depth: 1 }) },
    { label: 'b', result: result({ kind: 'mutex', permits: 8, depth: 1 }) },
  ]);
  assert.match(both, /<code>--permits<\/code><\/td><td>8<\/td><td>–<\/td>/);
  assert.not.ok(both.includes('--depth'));
});

test.run();
