import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// npm test on a machine without the servers and without a way to install them (not root, or root
// with no registry): scripts/run-tests.ts stops before any test, in seconds, with the command to
// run. A PATH of a few tools and fakes stands in for that machine.
const test = suite('test needs');
const root = join(import.meta.dirname, '..', '..');
const dirs: string[] = [];

/** A bin folder with bash and `id` answering `uid`, and `apt-get` failing as without a registry. */
function machine(uid: number): NodeJS.ProcessEnv {
  const dir = mkdtempSync(join(tmpdir(), 'pipelock-needs-'));
  dirs.push(dir);
  const bin = join(dir, 'bin');
  spawnSync('mkdir', [bin]);
  for (const tool of ['bash', 'mkdir', 'cat']) symlinkSync(spawnSync('bash', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim(), join(bin, tool));
  const fake = (name: string, body: string): void => {
    writeFileSync(join(bin, name), `#!${join(bin, 'bash')}\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  fake('id', `echo ${uid}`);
  fake('apt-get', 'echo "E: Temporary failure resolving deb.debian.org" >&2; exit 100');
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: bin, XDG_CACHE_HOME: join(dir, 'cache') };
  delete env.PIPELOCK_REDIS_SERVER;
  delete env.PIPELOCK_VALKEY_SERVER;
  return env;
}

function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv): { status: number | null; out: string; ms: number } {
  const started = performance.now();
  const result = spawnSync(command, args, { cwd: root, env, encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, out: `${result.stdout}${result.stderr}`, ms: performance.now() - started };
}

test.after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

test('ensure-redis.sh: not root, no redis-server: exits 1 naming the install command', () => {
  const result = run('/bin/sh', ['-c', 'bash scripts/ensure-redis.sh'], machine(1000));
  assert.is(result.status, 1, result.out);
  assert.match(result.out, /not root, so not installing it; install it with: apt-get install redis-server/);
});

test('ensure-redis.sh: root without a registry: exits 1 with the hint, not apt-get\'s code alone', () => {
  const result = run('/bin/sh', ['-c', 'bash scripts/ensure-redis.sh'], machine(0));
  assert.is(result.status, 1, result.out);
  assert.match(result.out, /Temporary failure resolving/);
  assert.match(result.out, /installing redis-server with apt-get failed \(see above\); install it with: apt-get install redis-server/);
});

test('ensure-valkey.sh: not root, nothing cached: exits 1 naming npm run ensure-valkey', () => {
  const result = run('/bin/sh', ['-c', 'bash scripts/ensure-valkey.sh'], machine(1000));
  assert.is(result.status, 1, result.out);
  assert.match(result.out, /not root, so not building one; run npm run ensure-valkey as root/);
});

test('run-tests.ts: a tier whose server is missing stops the run before any test, in seconds', () => {
  const env = machine(1000);
  const args = ['--conditions=pipelock-source', '--import', 'tsx', 'scripts/run-tests.ts', 'unit', 'integration', 'valkey'];
  const result = run(process.execPath, args, env);
  assert.is(result.status, 1, result.out);
  assert.match(result.out, /apt-get install redis-server/);
  assert.match(result.out, /run-tests: integration, valkey need what scripts\/ensure-redis\.sh provides \(see above\); no test was run/);
  assert.not.match(result.out, /passed|✔|✘/, 'no test file ran');
  assert.ok(result.ms < 30_000, `stopped after ${result.ms.toFixed(0)} ms`);
});

test.run();
