import '../helpers/setup.js';
import { RedisClient } from '@redis/client';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import type { Comparison } from '../../tools/src/load/compare.js';
import { root } from '../helpers/cli.js';
import { mastersSuite } from '../helpers/masters.js';
import { timed } from '../helpers/timeout.js';

// examples/ci/lock-regression.yml's load-test step, run here as the workflow runs it: the same
// script with the same environment, pipelock from source on both sides, three local masters.
const test = mastersSuite('ci example', { count: 3 });
const script = join(root, 'examples', 'ci', 'lock-regression.sh');
const workflow = join(root, 'examples', 'ci', 'lock-regression.yml');

let dir = '';
test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pipelock-ci-example-'));
});
test.after(async () => {
  await rm(dir, { recursive: true, force: true });
});

function bash(env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  const child = spawn('bash', [script], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => {
    child.once('close', (code) => {
      resolve({ code, stderr });
    });
  });
}

test('the workflow runs the script with the environment it reads, against as many masters as it starts', async () => {
  const yml = await readFile(workflow, 'utf8');
  assert.match(yml, /run: bash scripts\/lock-regression\.sh/);
  for (const name of ['BASE_PIPELOCK', 'NEW_PIPELOCK', 'SERVERS', 'RUNS', 'LOAD_FLAGS', 'OUT']) assert.match(yml, new RegExp(`^ {10}${name}: `, 'm'), name);
  const services = [...yml.matchAll(/ports: \['(\d+):6379'\]/g)].map((m) => m[1]);
  const servers = /SERVERS: (\S+)/.exec(yml)?.[1]?.split(',').map((url) => new URL(url).port);
  assert.equal(servers, services);
});

test('lock-regression.sh: base and change alternately, compare with its markdown on the step summary; masters left empty', timed(180_000, async ({ masters }) => {
  const summary = join(dir, 'summary.md');
  const out = join(dir, 'results');
  const pipelock = `node --conditions=pipelock-source --import tsx ${join(root, 'tools', 'src', 'cli', 'main.ts')}`;
  const run = await bash({
    BASE_PIPELOCK: pipelock, NEW_PIPELOCK: pipelock, SERVERS: masters.urls.join(','), RUNS: '2',
    LOAD_FLAGS: '--duration 1 --warmup 0.2 --workers 1 --concurrency 4', OUT: out, GITHUB_STEP_SUMMARY: summary,
  });
  // The same code on both sides: whether a short run on a shared machine "regressed" is chance; the
  // exit code must be compare's verdict, and never 2 (runs that could not be compared).
  const comparison = JSON.parse(await readFile(join(out, 'compare.json'), 'utf8')) as Comparison;
  assert.is(run.code, { regressed: 1, inconclusive: 3, ok: 0 }[comparison.verdict], run.stderr);
  assert.equal(comparison.base.files, [join(out, 'base-1.json'), join(out, 'base-2.json')]);
  assert.equal(comparison.new.files, [join(out, 'new-1.json'), join(out, 'new-2.json')]);
  assert.equal([...run.stderr.matchAll(/lock-regression: (\w+) run (\d)/g)].map((m) => `${m[1]}${m[2]}`), ['base1', 'new1', 'base2', 'new2']);
  assert.is(await readFile(summary, 'utf8'), await readFile(join(out, 'compare.md'), 'utf8'));
  assert.ok((await stat(join(out, 'compare.html'))).size > 50_000);
  const createClient = RedisClient.factory();
  for (const url of masters.urls) {
    const client = createClient({ url });
    await client.connect();
    assert.is(await client.dbSize(), 0, `${url} keeps no key of the runs`);
    client.destroy();
  }
}));

test('lock-regression.sh: a missing SERVERS stops it before any run, naming the variable', timed(30_000, async () => {
  const run = await bash({ BASE_PIPELOCK: 'true', NEW_PIPELOCK: 'true', SERVERS: '', OUT: join(dir, 'none') });
  assert.ok(run.code !== 0 && run.code !== null, String(run.code));
  assert.match(run.stderr, /SERVERS: gives the URLs of the masters/);
}));

test.run();
