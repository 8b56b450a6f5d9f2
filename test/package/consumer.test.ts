/**
 * The package as users get it: `npm pack` (which runs `prepare`, the build) → install the tarball
 * into an empty project → use it from ESM, from CommonJS, from TypeScript (nodenext, both module
 * kinds) and through its bin. Nothing here imports the repository's sources.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import * as assert from 'uvu/assert';
import { mastersSuite } from '../helpers/masters.js';
import { timed } from '../helpers/timeout.js';

const run = promisify(execFile);
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');

interface Context {
  dir: string;
  tarball: string;
  files: string[];
  /** What `new Redlock([url])` said before any client library was installed. */
  withoutPeers: string;
}

const test = mastersSuite('package consumer', { count: 1 });
const state: Context = { dir: '', tarball: '', files: [], withoutPeers: '' };

test.before(async () => {
  state.dir = await mkdtemp(join(tmpdir(), 'pipelock-consumer-'));
  // --json lists the files packed; `prepare` builds dist/ first, as it does on a user's `npm pack`.
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', state.dir], { cwd: root, maxBuffer: 16 << 20 });
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  state.tarball = join(state.dir, packed!.filename);
  state.files = packed!.files.map((f) => f.path);
  await writeFile(join(state.dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
  const install = (...what: string[]) => run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--no-package-lock', ...what], { cwd: state.dir, maxBuffer: 16 << 20 });
  await install(state.tarball);
  // Both client libraries are optional peers: a bare install has neither.
  const probe = join(state.dir, 'no-peers.mjs');
  await writeFile(probe, `
import { Redlock } from 'pipelock';
try { new Redlock(['redis://127.0.0.1:1']); console.log('constructed'); } catch (e) { console.log(e.code, e.argument, e.message); }
`);
  state.withoutPeers = (await run('node', [probe], { cwd: state.dir })).stdout.trim();
  await install(state.tarball, `@redis/client@${devVersion('@redis/client')}`, `ioredis@${devVersion('ioredis')}`);
});

/** The version this repository develops against, so the consumer installs it from npm's cache. */
function devVersion(name: string): string {
  return (JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
}

test.after(async () => {
  if (state.dir !== '') await rm(state.dir, { recursive: true, force: true });
});

test('the tarball ships the build, the bin and the CommonJS entry points, not the sources', () => {
  for (const file of ['package.json', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/index.cjs', 'dist/index.d.cts', 'dist/testing.cjs', 'dist/cli/main.js', 'dist/metrics/index.js', 'dist/metrics/index.d.ts', 'dist/metrics.cjs']) {
    assert.ok(state.files.includes(file), `${file} is packed (packed: ${state.files.length} files)`);
  }
  assert.not.ok(state.files.some((f) => f.startsWith('src/') || f.startsWith('test/')), 'no sources or tests');
});

test('@redis/client and ioredis are optional peers: without @redis/client, a URL is refused saying what to install', () => {
  assert.match(state.withoutPeers, /^ERR_PIPELOCK_INVALID_ARGUMENT clients .*npm install @redis\/client/);
});

test('a node-redlock v5 program with ioredis clients runs with only its import changed', timed(30_000, async ({ masters }) => {
  const file = join(state.dir, 'v5.cjs');
  await writeFile(file, `
const Redlock = require('pipelock').default;
const { ResourceLockedError } = require('pipelock');
const Client = require('ioredis');
(async () => {
  const redlock = new Redlock([new Client(process.argv[2])], { retryCount: 0 });
  const heard = [];
  redlock.on('error', (error) => { if (error instanceof ResourceLockedError) heard.push(error); });
  await redlock.using(['consumer:v5'], 1000, async (signal) => {
    await redlock.acquire(['consumer:v5'], 1000).catch(() => undefined);
    if (signal.aborted) throw signal.error;
  });
  await redlock.quit();
  console.log('v5 ok', heard.length);
})().catch((e) => { console.error(e); process.exit(1); });
`);
  const { stdout } = await run('node', [file, masters.urls[0]!], { cwd: state.dir });
  assert.is(stdout.trim(), 'v5 ok 1');
}));

test('ESM import: locks against a real master', timed(30_000, async ({ masters }) => {
  const file = join(state.dir, 'esm.mjs');
  await writeFile(file, `
import Redlock, { Redlock as Named, ResourceLockedError } from 'pipelock';
import { startMasters } from 'pipelock/testing';
if (Redlock !== Named) throw new Error('default export is not Redlock');
const redlock = new Redlock([process.argv[2]], { retryCount: 0 });
const lock = await redlock.acquire(['consumer:esm'], 5000);
const refused = await redlock.acquire(['consumer:esm'], 5000).catch((e) => e);
if (!(refused instanceof ResourceLockedError)) throw new Error('expected ResourceLockedError, got ' + refused);
await lock.release();
await redlock.quit();
console.log('esm ok', typeof startMasters);
`);
  const { stdout } = await run('node', [file, masters.urls[0]!], { cwd: state.dir });
  assert.is(stdout.trim(), 'esm ok function');
}));

test('CommonJS require: the v5 shape (.default is Redlock), locks against a real master', timed(30_000, async ({ masters }) => {
  const file = join(state.dir, 'cjs.cjs');
  await writeFile(file, `
const pipelock = require('pipelock');
const Redlock = pipelock.default;
if (Redlock !== pipelock.Redlock) throw new Error('.default is not Redlock');
if (typeof require('pipelock/testing').startMasters !== 'function') throw new Error('pipelock/testing');
(async () => {
  const redlock = new Redlock([process.argv[2]], { retryCount: 0 });
  const lock = await redlock.acquire(['consumer:cjs'], 5000);
  const refused = await redlock.acquire(['consumer:cjs'], 5000).catch((e) => e);
  if (!(refused instanceof pipelock.ResourceLockedError)) throw new Error('expected ResourceLockedError, got ' + refused);
  await lock.release();
  await redlock.quit();
  console.log('cjs ok');
})().catch((e) => { console.error(e); process.exit(1); });
`);
  const { stdout, stderr } = await run('node', [file, masters.urls[0]!], { cwd: state.dir });
  assert.is(stdout.trim(), 'cjs ok');
  assert.not.match(stderr, /ExperimentalWarning/, 'require(esm) prints no warning');
}));

test('one implementation behind both entry points: classes and errors are shared', timed(30_000, async () => {
  const file = join(state.dir, 'both.mjs');
  await writeFile(file, `
import * as esm from 'pipelock';
import { createRequire } from 'node:module';
const cjs = createRequire(import.meta.url)('pipelock');
if (cjs.Redlock !== esm.Redlock) throw new Error('two Redlock classes');
let thrown;
try { new cjs.Redlock([]); } catch (e) { thrown = e; }
if (!(thrown instanceof esm.InvalidArgumentError)) throw new Error('an error from require() is not instanceof the import()ed class');
console.log('shared', thrown.code);
`);
  const { stdout } = await run('node', [file], { cwd: state.dir });
  assert.is(stdout.trim(), 'shared ERR_PIPELOCK_INVALID_ARGUMENT');
}));

test('pipelock/metrics imports without its optional peers; an adapter names the package to install', timed(30_000, async () => {
  const file = join(state.dir, 'metrics.mjs');
  await writeFile(file, `
import { prometheusMetrics, openTelemetryMetrics, ACQUIRE_CHANNEL } from 'pipelock/metrics';
import { InvalidArgumentError } from 'pipelock';
import { createRequire } from 'node:module';
const cjs = createRequire(import.meta.url)('pipelock/metrics');
if (cjs.prometheusMetrics !== prometheusMetrics) throw new Error('two copies of pipelock/metrics');
const names = [];
for (const adapter of [prometheusMetrics, openTelemetryMetrics]) {
  try { adapter(); throw new Error('no error without the peer'); } catch (e) {
    if (!(e instanceof InvalidArgumentError)) throw e;
    names.push(e.argument);
  }
}
console.log(ACQUIRE_CHANNEL, names.join(' '));
`);
  const { stdout } = await run('node', [file], { cwd: state.dir });
  assert.is(stdout.trim(), 'pipelock:acquire prom-client @opentelemetry/api');
}));

test('TypeScript consumers typecheck with moduleResolution nodenext, ESM and CommonJS', timed(60_000, async () => {
  await writeFile(join(state.dir, 'typed.mts'), `
import Redlock, { type Lock, ResourceLockedError, type Settings } from 'pipelock';
import { prometheusMetrics, type PrometheusMetricsOptions } from 'pipelock/metrics';
export const metricsOptions: PrometheusMetricsOptions = { resourceLabel: (r) => r[0] ?? '' };
export const start: typeof prometheusMetrics = prometheusMetrics;
const settings: Partial<Settings> = { retryCount: 3 };
export async function take(redlock: Redlock): Promise<Lock> {
  try { return await redlock.acquire(['k'], 1000, settings); } catch (error) { if (error instanceof ResourceLockedError) throw error; throw error; }
}
`);
  await writeFile(join(state.dir, 'typed.cts'), `
import pipelock = require('pipelock');
const Redlock = pipelock.default;
export function make(url: string): InstanceType<typeof Redlock> { return new Redlock([url]); }
export const code: string = new pipelock.InvalidArgumentError('x', 'y', 1).code;
`);
  await writeFile(join(state.dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true,
      skipLibCheck: false, types: ['node'], typeRoots: [join(root, 'node_modules', '@types')],
    },
    files: ['typed.mts', 'typed.cts'],
  }));
  const result = await run('node', [tsc, '-p', 'tsconfig.json'], { cwd: state.dir }).catch((error: unknown) => error as { stdout: string; code: number });
  assert.is((result as { code?: number }).code ?? 0, 0, `tsc: ${(result as { stdout: string }).stdout}`);
}));

test('the bin runs: pipelock --help', timed(30_000, async () => {
  const { stdout } = await run(join(state.dir, 'node_modules', '.bin', 'pipelock'), ['--help'], { cwd: state.dir });
  assert.match(stdout, /loadtest/);
  const manifest = JSON.parse(await readFile(join(state.dir, 'node_modules', 'pipelock', 'package.json'), 'utf8')) as { engines: { node: string } };
  assert.match(manifest.engines.node, /20\.19/, 'engines names the Node versions with require(esm)');
}));

test.run();
