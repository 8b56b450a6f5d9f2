import '../helpers/setup.js';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cli } from '../helpers/cli.js';
import { timed } from '../helpers/timeout.js';

// Each failure ends with one clear message (naming the flag, the URL, or what to install) and its exit code.
const test = suite('loadtest errors');

/** stderr's lines other than blank ones and the --help hint. */
function messageLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('Try pipelock'));
}

test('bad flags exit 2 with one message naming the flag (the full table is unit-tested)', timed(30_000, async () => {
  const cases: [string[], RegExp][] = [
    [['loadtest', '--wrkers', '2'], /^pipelock loadtest: --wrkers is not a loadtest flag/],
    [['loadtest', '--workers', '0'], /^pipelock loadtest: --workers must be an integer from 1 to 256, got "0"$/],
    [['loadtest', '--servers', 'redis://127.0.0.1:1', '--masters', '3'], /^pipelock loadtest: --masters conflicts with --servers/],
    [['frobnicate'], /^pipelock: unknown command "frobnicate"/],
    [['report', 'merge', 'only-one.json'], /^pipelock report: report merge needs at least two result files/],
  ];
  const runs = await Promise.all(cases.map(([args]) => cli(args)));
  runs.forEach((run, i) => {
    const [args, message] = cases[i]!;
    assert.is(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
    assert.match(messageLines(run.stderr)[0] ?? '', message);
    if (args[0] === 'loadtest') assert.is(messageLines(run.stderr).length, 1, run.stderr);
    assert.is(run.stdout, '');
  });
}));

test('--help documents the flags and exits 0', timed(20_000, async () => {
  const [loadtest, top] = await Promise.all([cli(['loadtest', '--help']), cli(['--help'])]);
  assert.is(loadtest.code, 0);
  assert.match(loadtest.stdout, /--rate R/);
  assert.match(loadtest.stdout, /renew-hold/);
  assert.is(top.code, 0);
  assert.match(top.stdout, /report merge/);
}));

test('runtime failures exit 1 with one message (unreachable master, no redis-server); unreadable results are bad input, exit 2', timed(30_000, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'pipelock-loadtest-'));
  try {
    const notResult = join(dir, 'x.json');
    await writeFile(notResult, '{"hello":1}');
    // A second such file (the same file twice is refused as bad usage): either may be read first.
    const notResultToo = join(dir, 'again', 'x.json');
    await mkdir(join(dir, 'again'));
    await writeFile(notResultToo, '{"hello":1}');
    const [unreachable, noBinary, badFile, missingFile] = await Promise.all([
      // Port 1: nothing listens there, and it is never the machine's shared Redis.
      cli(['loadtest', '--servers', 'redis://127.0.0.1:1', '--duration', '1']),
      cli(['loadtest', '--masters', '1', '--duration', '1'], { env: { PIPELOCK_REDIS_SERVER: join(dir, 'no-such-redis-server') } }),
      cli(['report', 'merge', notResult, notResultToo]),
      cli(['report', 'merge', join(dir, 'missing.json'), notResult]),
    ]);
    assert.is(unreachable.code, 1, unreachable.stderr);
    assert.equal(messageLines(unreachable.stderr), [messageLines(unreachable.stderr)[0]!]);
    assert.match(unreachable.stderr, /^pipelock loadtest: cannot reach redis:\/\/127\.0\.0\.1:1: /);
    assert.is(noBinary.code, 1, noBinary.stderr);
    assert.match(noBinary.stderr, /^pipelock loadtest: redis-server not found: .*install it \(apt-get install redis-server\) or set PIPELOCK_REDIS_SERVER/);
    assert.is(badFile.code, 2);
    assert.match(badFile.stderr, /x\.json is not a result of pipelock loadtest --json/);
    assert.is(missingFile.code, 2);
    assert.match(missingFile.stderr, /missing\.json cannot be read: ENOENT/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}));

test.run();
