import '../helpers/setup.js';
import { RedisClient } from '@redis/client';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { decode } from '../../tools/src/load/histogram.js';
import { OP_NAMES, type RunResult } from '../../tools/src/load/result.js';
import { mastersSuite } from '../helpers/masters.js';
import { cli } from '../helpers/cli.js';
import { timed } from '../helpers/timeout.js';

// Runs against masters started here through --servers (the path for existing masters: per-run
// prefix, cleanup, AUTH in the URL); the embedded default is covered by loadtest-open-loop.
const test = mastersSuite('loadtest', { count: 3 });

let dir = '';
test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pipelock-loadtest-'));
});
test.after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const kShortRun = ['--workers', '2', '--concurrency', '4', '--duration', '1', '--warmup', '0.2'];

async function readResult(file: string): Promise<RunResult> {
  return JSON.parse(await readFile(file, 'utf8')) as RunResult;
}

// One factory: createClient() rebuilds its command class whenever the options (url included) change.
const createClient = RedisClient.factory();

async function withEach<T>(urls: readonly string[], fn: (client: ReturnType<typeof createClient>) => Promise<T>): Promise<T[]> {
  return Promise.all(urls.map(async (url) => {
    const client = createClient({ url, socket: { reconnectStrategy: false } });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return await fn(client);
    } finally {
      client.destroy();
    }
  }));
}

/** What every result must satisfy: counts agree with each other and percentiles never fall. */
function validate(result: RunResult, extends_: boolean): void {
  assert.is(result.format, 'pipelock-loadtest');
  assert.ok(result.cycles > 0, 'cycles > 0');
  assert.is(result.interrupted, false);
  for (const op of OP_NAMES) {
    const s = result.operations[op];
    assert.is(s.count, op === 'extend' && !extends_ ? 0 : result.cycles, `${op} count`);
    assert.is(decode(s.histogram).totalCount, s.count, `${op} merged histogram count`);
    if (s.count === 0) continue;
    assert.ok(s.p50 > 0 && s.p50 <= s.p90 && s.p90 <= s.p99 && s.p99 <= s.p999 && s.p999 <= s.max, `${op} percentiles non-decreasing: ${JSON.stringify(s)}`);
  }
  assert.is(result.workers.length, 2);
  assert.is(result.workers.reduce((n, w) => n + w.cycles, 0), result.cycles, 'per-worker cycles sum to the total');
  assert.is(result.workers.reduce((n, w) => n + w.errors, 0), Object.values(result.errors).reduce((a, b) => a + b, 0), 'per-worker errors sum to the total');
  assert.ok(Math.abs(result.throughput - result.cycles / result.measuredSeconds) < 1e-6);
  assert.ok(result.measuredSeconds > 0.8 && result.measuredSeconds <= 1.1, `measured ${result.measuredSeconds} s`);
  const host = result.hosts[0]!;
  assert.ok(host.redis.length === 1 && /^\d+\.\d+/.test(host.redis[0]!), `redis versions ${host.redis.join()}`);
  assert.ok(host.cores >= 1 && host.node === process.version);
}

test('acquire-release: the JSON validates, the HTML is self-contained, no key is left behind', timed(30_000, async ({ masters }) => {
  const json = join(dir, 'a.json');
  const html = join(dir, 'a.html');
  const run = await cli(['loadtest', '--servers', masters.urls.join(','), ...kShortRun, '--json', json, '--html', html]);
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stdout, /latency \(µs\)\s+count\s+p50\s+p90\s+p99\s+p99\.9\s+max/);
  assert.match(run.stdout, /^acquire\s+\d+/m);
  assert.match(run.stdout, /^throughput\s+[\d.]+ cycles\/s/m);
  const result = await readResult(json);
  validate(result, false);
  assert.equal(result.hosts[0]!.flags.servers, [...masters.urls]);
  const page = await readFile(html, 'utf8');
  assert.ok(page.includes('var uPlot=') && page.includes('Latency by percentile'));
  assert.not.match(page, /<script[^>]+src=|<link[^>]+href=/);
  assert.equal(await withEach(masters.urls, (client) => client.dbSize()), [0, 0, 0]);
}));

test('acquire-extend-release over masters that require AUTH: extend is timed, the password appears nowhere', timed(30_000, async ({ masters }) => {
  const password = 'load-test-secret';
  await withEach(masters.urls, (client) => client.configSet('requirepass', password));
  try {
    const urls = masters.urls.map((url) => url.replace('redis://', `redis://:${password}@`));
    const json = join(dir, 'b.json');
    const run = await cli(['loadtest', '--servers', urls.join(','), ...kShortRun, '--operation', 'acquire-extend-release', '--keys', '20', '--json', json]);
    assert.is(run.code, 0, run.stderr);
    assert.match(run.stdout, /^extend\s+\d+/m);
    const text = await readFile(json, 'utf8');
    assert.not.ok(text.includes(password) || run.stdout.includes(password) || run.stderr.includes(password));
    validate(JSON.parse(text) as RunResult, true);
    assert.equal(await withEach(urls, (client) => client.dbSize()), [0, 0, 0]);
  } finally {
    await withEach(masters.urls.map((url) => url.replace('redis://', `redis://:${password}@`)), (client) => client.configSet('requirepass', ''));
  }
}));

test('report merge refuses the two runs, made one after the other: their measured windows do not overlap', timed(20_000, async () => {
  const run = await cli(['report', 'merge', join(dir, 'a.json'), join(dir, 'b.json'), '--json', join(dir, 'refused.json')]);
  assert.is(run.code, 2, run.stderr);
  assert.match(run.stderr, /a\.json stopped measuring at .*, before .*b\.json started at .*do not overlap/);
  assert.not.ok(await readFile(join(dir, 'refused.json')).then(() => true, () => false));
}));

test('report merge --allow-disjoint of the two runs equals their sum, exactly', timed(20_000, async () => {
  const [a, b] = await Promise.all([readResult(join(dir, 'a.json')), readResult(join(dir, 'b.json'))]);
  const out = join(dir, 'merged.json');
  const run = await cli(['report', 'merge', join(dir, 'a.json'), join(dir, 'b.json'), '--allow-disjoint', '--json', out, '--html', join(dir, 'merged.html')]);
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stdout, /2 runs merged/);
  const merged = await readResult(out);
  assert.is(merged.runs, 2);
  assert.is(merged.cycles, a.cycles + b.cycles);
  assert.ok(Math.abs(merged.throughput - (a.throughput + b.throughput)) < 1e-6);
  for (const op of OP_NAMES) {
    const sum = decode(a.operations[op].histogram);
    sum.add(decode(b.operations[op].histogram));
    assert.is(merged.operations[op].count, a.operations[op].count + b.operations[op].count, op);
    assert.is(merged.operations[op].p99, sum.getValueAtPercentile(99), `${op} p99`);
    assert.is(merged.operations[op].max, sum.getValueAtPercentile(100), `${op} max`);
  }
  const errors = (r: RunResult): number => Object.values(r.errors).reduce((x, y) => x + y, 0);
  assert.is(errors(merged), errors(a) + errors(b));
  assert.is(merged.workers.length, a.workers.length + b.workers.length);
  assert.is(merged.hosts.length, 2);
}));

test('renew-hold counts the holds it never got: still acquiring at the end is not "errors none"', timed(30_000, async ({ masters }) => {
  // One key, four slots, retries until the run ends: one slot holds the lock, the other three are
  // refused and retry for the whole run. Their acquisitions never fail on their own, so only the
  // end of the run shows them.
  const json = join(dir, 'renew-hold.json');
  const run = await cli(['loadtest', '--servers', masters.urls.join(','), '--operation', 'renew-hold', '--workers', '1', '--concurrency', '4', '--keys', '1',
    '--retry-count', '-1', '--retry-delay', '20', '--duration', '1', '--warmup', '0.2', '--json', json]);
  // 3 of the 4 locks asked for were never held: more failures than holds, which fails the run by default.
  assert.is(run.code, 99, run.stderr);
  assert.match(run.stdout, /^threshold +FAIL {2}errors\.rate<=50%/m);
  assert.match(run.stdout, /^held\s+1 of 4 locks until the run ended, kept alive by pipelock; 0 lost, 3 still acquiring at the end, 0 other failures/m);
  assert.match(run.stdout, /^errors\s+ERR_LOAD_STILL_ACQUIRING 3$/m);
  assert.equal((await readResult(json)).errors, { ERR_LOAD_STILL_ACQUIRING: 3 });
  assert.equal(await withEach(masters.urls, (client) => client.dbSize()), [0, 0, 0]);
}));

test('renew-hold: a lock held to the end whose release times out counts as held, its release under errors', timed(30_000, async ({ masters }) => {
  // Every master paused shortly before the run ends and resumed well after: the holds are done,
  // each release times out (nodeTimeout) on every master and, with no retries, is not tried again;
  // the leftover keys are removed after.
  const json = join(dir, 'renew-hold-release.json');
  const timers: NodeJS.Timeout[] = [];
  const run = await cli(['loadtest', '--servers', masters.urls.join(','), '--operation', 'renew-hold', '--workers', '1', '--concurrency', '4',
    '--retry-count', '0', '--duration', '1', '--warmup', '0.2', '--json', json], {
    onStart: () => {
      timers.push(setTimeout(() => {
        for (const m of masters.masters) m.pause();
      }, 800));
      timers.push(setTimeout(() => {
        for (const m of masters.masters) m.resume();
      }, 2_500));
    },
  });
  for (const timer of timers) clearTimeout(timer);
  for (const m of masters.masters) if (m.paused) m.resume();
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stdout, /^held\s+4 of 4 locks until the run ended, 4 of them released unconfirmed, kept alive by pipelock; 0 lost, 0 still acquiring at the end, 0 other failures/m);
  assert.match(run.stdout, /^errors\s+ERR_LOAD_RELEASE_UNCONFIRMED 4$/m);
  assert.equal((await readResult(json)).errors, { ERR_LOAD_RELEASE_UNCONFIRMED: 4 });
  assert.equal(await withEach(masters.urls, (client) => client.dbSize()), [0, 0, 0]);
}));

test.run();
