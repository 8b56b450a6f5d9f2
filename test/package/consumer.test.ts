/**
 * The two packages as users get them, each packed with `npm pack` (which runs `prepare`/`prepack`,
 * the builds). The library alone into an empty project: it brings none of the tools' dependencies,
 * and works from ESM, CommonJS and TypeScript (nodenext, both module kinds). The tools with the
 * library into another project: `npx pipelock` runs there. Nothing here imports the repository's sources.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { mastersSuite } from '../helpers/masters.js';
import { devVersion, install, installed, pack, root, run, type Packed } from '../helpers/package.js';
import { closeAll, connectAll } from '../helpers/redis.js';
import { timed } from '../helpers/timeout.js';

const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const kToolsOnly = ['piscina', 'hdr-histogram-js', 'uplot'];

interface Context {
  /** The tarballs' folder, and beside them the library's project and the tools' (siblings, so neither resolves into the other). */
  dir: string;
  libDir: string;
  toolsDir: string;
  lib: Packed;
  tools: Packed;
  /** artillery-engine-pipelock, installed with the tools as an Artillery user would. */
  engine: Packed;
  /** node_modules of the library's project right after `npm install pipelock.tgz`. */
  bare: string[];
  /** What `new Redlock([url])` said before any client library was installed. */
  withoutPeers: string;
}

const test = mastersSuite('package consumer', { count: 3 });
const kUnpacked: Packed = { tarball: '', files: [], manifest: {} };
const state: Context = { dir: '', libDir: '', toolsDir: '', lib: kUnpacked, tools: kUnpacked, engine: kUnpacked, bare: [], withoutPeers: '' };

test.before(async () => {
  state.dir = await mkdtemp(join(tmpdir(), 'pipelock-consumer-'));
  state.libDir = join(state.dir, 'library');
  state.toolsDir = join(state.dir, 'tools');
  state.lib = await pack(root, state.dir);
  // After the library: the tools build against its fresh dist/ types.
  state.tools = await pack(join(root, 'tools'), state.dir);
  // After the tools: the engine builds against their fresh dist/ types (pipelock-tools/driver).
  state.engine = await pack(join(root, 'artillery-engine-pipelock'), state.dir);
  for (const [dir, name] of [[state.libDir, 'lib-consumer'], [state.toolsDir, 'tools-consumer']] as const) {
    await mkdir(dir);
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name, private: true }));
  }
  await install(state.libDir, state.lib.tarball);
  state.bare = (await readdir(join(state.libDir, 'node_modules'))).filter((name) => !name.startsWith('.'));
  // Both client libraries are optional peers: a bare install has neither.
  const probe = join(state.libDir, 'no-peers.mjs');
  await writeFile(probe, `
import { Redlock } from 'pipelock';
try { new Redlock(['redis://127.0.0.1:1']); console.log('constructed'); } catch (e) { console.log(e.code, e.argument, e.message); }
`);
  state.withoutPeers = (await run('node', [probe], { cwd: state.libDir })).stdout.trim();
  await install(state.libDir, state.lib.tarball, `@redis/client@${devVersion('@redis/client')}`, `ioredis@${devVersion('ioredis')}`);
  await install(state.toolsDir, state.lib.tarball, state.tools.tarball, state.engine.tarball);
});

test.after(async () => {
  if (state.dir !== '') await rm(state.dir, { recursive: true, force: true });
});

test('the library\'s tarball ships the build and the CommonJS entry points, not the sources, not the tools', () => {
  for (const file of ['package.json', 'README.md', 'LICENSE', 'dist/index.js', 'dist/index.d.ts', 'dist/index.cjs', 'dist/index.d.cts', 'dist/testing.cjs', 'dist/metrics/index.js', 'dist/metrics/index.d.ts', 'dist/metrics.cjs', 'dist/protocol/index.js', 'dist/protocol/index.d.ts', 'dist/protocol.cjs', 'dist/protocol.d.cts']) {
    assert.ok(state.lib.files.includes(file), `${file} is packed (packed: ${state.lib.files.length} files)`);
  }
  assert.not.ok(state.lib.files.some((f) => /^(src|test|tools)\//.test(f) || /^dist\/(cli|load|ops)\//.test(f)), 'no sources, tests or tools');
  assert.is(state.lib.manifest.bin, undefined, 'no bin: the pipelock command is pipelock-tools\'');
  // cluster-key-slot (slots), redis-parser (the lean connection's RESP parser, docs/decisions/0010).
  assert.equal(Object.keys(state.lib.manifest.dependencies ?? {}).sort(), ['cluster-key-slot', 'redis-parser']);
});

/** Every file an `exports` map names, under any condition. */
function exportTargets(value: unknown): string[] {
  if (typeof value === 'string') return [value.replace(/^\.\//, '')];
  return typeof value === 'object' && value !== null ? Object.values(value).flatMap(exportTargets) : [];
}

test('both tarballs read well on npm: metadata, LICENSE, CHANGELOG; every export target is in the tarball; the peers are complete', async () => {
  for (const [packed, dir] of [[state.lib, root], [state.tools, join(root, 'tools')]] as const) {
    const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
    for (const field of ['repository', 'homepage', 'bugs', 'keywords', 'license']) assert.ok(manifest[field] !== undefined, `${String(manifest.name)} has ${field}`);
    assert.ok(packed.files.includes('LICENSE'), `${String(manifest.name)} ships LICENSE`);
    for (const target of exportTargets(manifest.exports)) assert.ok(packed.files.includes(target), `${String(manifest.name)}: exports names ${target}, which is not in the tarball`);
  }
  assert.ok(state.lib.files.includes('CHANGELOG.md'), 'the library ships its CHANGELOG');
  assert.equal(Object.keys(state.lib.manifest.peerDependencies ?? {}).sort(), ['@opentelemetry/api', '@redis/client', 'ioredis', 'iovalkey', 'prom-client']);
});

test('the library installs alone: cluster-key-slot, redis-parser and nothing of the tools, with its peers or without', async () => {
  assert.equal(state.bare.sort(), ['cluster-key-slot', 'pipelock', 'redis-errors', 'redis-parser']);
  const all = await installed(state.libDir);
  for (const name of [...kToolsOnly, 'pipelock-tools']) assert.not.ok(all.has(name), `${name} is not installed`);
  assert.ok(all.has('@redis/client') && all.has('ioredis'), 'the peers asked for are');
});

test('@redis/client and ioredis are optional peers: without @redis/client, a URL is refused saying what to install', () => {
  assert.match(state.withoutPeers, /^ERR_PIPELOCK_INVALID_ARGUMENT clients .*npm install @redis\/client/);
});

test('a node-redlock v5 program with ioredis clients runs with only its import changed', timed(30_000, async ({ masters }) => {
  const file = join(state.libDir, 'v5.cjs');
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
  const { stdout } = await run('node', [file, masters.urls[0]!], { cwd: state.libDir });
  assert.is(stdout.trim(), 'v5 ok 1');
}));

test('ESM import: locks against a real master', timed(30_000, async ({ masters }) => {
  const file = join(state.libDir, 'esm.mjs');
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
  const { stdout } = await run('node', [file, masters.urls[0]!], { cwd: state.libDir });
  assert.is(stdout.trim(), 'esm ok function');
}));

test('CommonJS require: the v5 shape (.default is Redlock), locks against a real master', timed(30_000, async ({ masters }) => {
  const file = join(state.libDir, 'cjs.cjs');
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
  const { stdout, stderr } = await run('node', [file, masters.urls[0]!], { cwd: state.libDir });
  assert.is(stdout.trim(), 'cjs ok');
  assert.not.match(stderr, /ExperimentalWarning/, 'require(esm) prints no warning');
}));

test('one implementation behind both entry points: classes and errors are shared', timed(30_000, async () => {
  const file = join(state.libDir, 'both.mjs');
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
  const { stdout } = await run('node', [file], { cwd: state.libDir });
  assert.is(stdout.trim(), 'shared ERR_PIPELOCK_INVALID_ARGUMENT');
}));

test('pipelock/metrics imports without its optional peers; an adapter names the package to install', timed(30_000, async () => {
  const file = join(state.libDir, 'metrics.mjs');
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
  const { stdout } = await run('node', [file], { cwd: state.libDir });
  assert.is(stdout.trim(), 'pipelock:acquire prom-client @opentelemetry/api');
}));

test('pipelock/protocol: one frozen copy behind import and require', timed(30_000, async () => {
  const file = join(state.libDir, 'protocol.mjs');
  await writeFile(file, `
import { quorumSize, SCRIPTS, BATCH_SHA, DONE_MARKER, TOKEN_BYTES } from 'pipelock/protocol';
import { createRequire } from 'node:module';
const cjs = createRequire(import.meta.url)('pipelock/protocol');
if (cjs.SCRIPTS !== SCRIPTS || !Object.isFrozen(SCRIPTS)) throw new Error('two copies, or a mutable one');
console.log(quorumSize(5), SCRIPTS.some((s) => s.sha === BATCH_SHA), DONE_MARKER, TOKEN_BYTES);
`);
  const { stdout } = await run('node', [file], { cwd: state.libDir });
  assert.is(stdout.trim(), '3 true pipelock:done 20');
}));

test('TypeScript consumers typecheck with moduleResolution nodenext, ESM and CommonJS', timed(180_000, async () => {
  await writeFile(join(state.libDir, 'typed.mts'), `
import Redlock, { type Lock, ResourceLockedError, type Settings, type MemberEntry, type ClusterSeeds, type LockOwner, type ResolvedSettings, type RedlockOptions } from 'pipelock';
// Every type the constructor and a Lock name can be named by a user (the constructor's members, lock.redlock, redlock.settings).
export const members: MemberEntry[] = ['redis://127.0.0.1:6379', { cluster: ['redis://127.0.0.1:7000'] } satisfies ClusterSeeds];
export const options: RedlockOptions = { retryCount: 1 };
export function owner(lock: Lock): LockOwner { return lock.redlock; }
export function resolved(redlock: Redlock): ResolvedSettings { return redlock.settings; }
import { prometheusMetrics, type PrometheusMetricsOptions } from 'pipelock/metrics';
import { quorumSize, SCRIPTS, type ProtocolScript } from 'pipelock/protocol';
export const scripts: readonly ProtocolScript[] = SCRIPTS;
export const quorum: number = quorumSize(3);
export const metricsOptions: PrometheusMetricsOptions = { resourceLabel: (r) => r[0] ?? '' };
export const start: typeof prometheusMetrics = prometheusMetrics;
const settings: Partial<Settings> = { retryCount: 3 };
export async function take(redlock: Redlock): Promise<Lock> {
  try { return await redlock.acquire(['k'], 1000, settings); } catch (error) { if (error instanceof ResourceLockedError) throw error; throw error; }
}
`);
  await writeFile(join(state.libDir, 'typed.cts'), `
import pipelock = require('pipelock');
const Redlock = pipelock.default;
export function make(url: string): InstanceType<typeof Redlock> { return new Redlock([url]); }
export const code: string = new pipelock.InvalidArgumentError('x', 'y', 1).code;
import protocol = require('pipelock/protocol');
export const sha: string = protocol.BATCH_SHA;
`);
  await writeFile(join(state.libDir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true,
      skipLibCheck: false, types: ['node'], typeRoots: [join(root, 'node_modules', '@types')],
    },
    files: ['typed.mts', 'typed.cts'],
  }));
  const result = await run('node', [tsc, '-p', 'tsconfig.json'], { cwd: state.libDir }).catch((error: unknown) => error as { stdout: string; code: number });
  assert.is((result as { code?: number }).code ?? 0, 0, `tsc: ${(result as { stdout: string }).stdout}`);
}));

test('a node-redlock v5 TypeScript program compiles against the packed types with only its import changed', timed(300_000, async () => {
  // test/package/v5/program.ts as written compiles against redlock 5's own types: it is a v5 program.
  const v5 = join(root, 'test', 'package', 'v5');
  const compile = (cwd: string) => run('node', [tsc, '-p', 'tsconfig.json'], { cwd }).catch((error: unknown) => error as { stdout: string; code: number });
  const original = await compile(v5);
  assert.is((original as { code?: number }).code ?? 0, 0, `tsc against redlock: ${(original as { stdout: string }).stdout}`);
  const dir = join(state.libDir, 'v5');
  await mkdir(dir);
  const source = await readFile(join(v5, 'program.ts'), 'utf8');
  const swapped = source.replace("from 'redlock';", "from 'pipelock';");
  assert.is.not(swapped, source, 'the import is the one change');
  await writeFile(join(dir, 'program.ts'), swapped);
  const config = JSON.parse(await readFile(join(v5, 'tsconfig.json'), 'utf8')) as { compilerOptions: Record<string, unknown> };
  config.compilerOptions.typeRoots = [join(root, 'node_modules', '@types')];
  await writeFile(join(dir, 'tsconfig.json'), JSON.stringify(config));
  const result = await compile(dir);
  assert.is((result as { code?: number }).code ?? 0, 0, `tsc against pipelock: ${(result as { stdout: string }).stdout}`);
}));

test('the library states its Node versions; it has no bin', timed(30_000, async () => {
  const manifest = JSON.parse(await readFile(join(state.libDir, 'node_modules', 'pipelock', 'package.json'), 'utf8')) as { engines: { node: string } };
  assert.match(manifest.engines.node, /20\.19/, 'engines names the Node versions with require(esm)');
  assert.not.ok((await readdir(join(state.libDir, 'node_modules'))).includes('.bin'), 'no pipelock command without pipelock-tools');
}));

test('the tools\' tarball ships their build and the bin; pipelock is a peer, so the project\'s own copy is the one load-tested', async () => {
  for (const file of ['package.json', 'README.md', 'dist/cli/main.js', 'dist/load/worker.js', 'dist/ops/inspect.js']) assert.ok(state.tools.files.includes(file), `${file} is packed`);
  assert.not.ok(state.tools.files.some((f) => f.startsWith('src/')), 'no sources');
  assert.equal(state.tools.manifest.bin, { pipelock: './dist/cli/main.js' });
  assert.equal(Object.keys(state.tools.manifest.peerDependencies ?? {}), ['pipelock']);
  for (const name of kToolsOnly) assert.ok(state.tools.manifest.dependencies?.[name] !== undefined, `${name} is the tools' dependency`);
  const all = await installed(state.toolsDir);
  for (const name of ['pipelock', 'pipelock-tools', '@redis/client', ...kToolsOnly]) assert.ok(all.has(name), `${name} is installed`);
  assert.not.ok((await readdir(join(state.toolsDir, 'node_modules', 'pipelock-tools'))).includes('node_modules'), 'one copy of the library, the project\'s');
});

test('npx pipelock --help, in the project that installed the tools', timed(30_000, async () => {
  const { stdout } = await run('npx', ['pipelock', '--help'], { cwd: state.toolsDir });
  for (const command of ['loadtest', 'report merge', 'report compare', 'doctor', 'inspect']) assert.match(stdout, command);
}));

test('npx pipelock loadtest: worker threads drive the installed library against the masters, leave no key, and write the report with uPlot inlined', timed(60_000, async ({ masters }) => {
  const [json, html] = [join(state.toolsDir, 'run.json'), join(state.toolsDir, 'run.html')];
  const { stdout } = await run('npx', ['pipelock', 'loadtest', '--duration', '1s', '--warmup', '0', '--workers', '1', '--concurrency', '4', '--servers', masters.urls.join(','), '--json', json, '--html', html], { cwd: state.toolsDir });
  assert.match(await readFile(html, 'utf8'), /uPlot/);
  assert.match(stdout, /errors +none/);
  const result = JSON.parse(await readFile(json, 'utf8')) as { hosts: { pipelock: string }[]; throughput: number };
  assert.is(result.hosts[0]!.pipelock, '0.1.0', 'the host line names the installed library\'s version');
  assert.ok(result.throughput > 0, String(result.throughput));
  const probes = await connectAll(masters.urls);
  try {
    assert.equal(await Promise.all(probes.map((probe) => probe.dbSize())), [0, 0, 0], 'the run removed its keys');
  } finally {
    await closeAll(probes);
  }
}));

test('npx pipelock inspect reads a lock the installed library holds: both builds agree on pipelock/protocol', timed(30_000, async ({ masters }) => {
  const file = join(state.toolsDir, 'hold.mjs');
  await writeFile(file, `
import { Redlock } from 'pipelock';
import { execFileSync } from 'node:child_process';
const redlock = new Redlock(process.argv.slice(2));
const lock = await redlock.acquire(['consumer:inspected'], 10000);
try { process.stdout.write(execFileSync('npx', ['pipelock', 'inspect', '--servers', process.argv.slice(2).join(',')], { encoding: 'utf8' })); } finally { await lock.release(); await redlock.quit(); }
`);
  const { stdout } = await run('node', [file, ...masters.urls], { cwd: state.toolsDir });
  assert.match(stdout, /quorum 2/);
  assert.match(stdout, /held +consumer:inspected +owner \S+… +on 3\/3/);
}));

test('artillery-engine-pipelock as Artillery loads it: require() by name gives the class; init, a virtual user and done write its result', timed(60_000, async ({ masters }) => {
  assert.not.ok(state.engine.files.some((f) => f.startsWith('src/')), 'no sources');
  assert.ok(state.engine.files.includes('dist/index.cjs') && state.engine.files.includes('dist/engine.js'), state.engine.files.join(', '));
  const probe = join(state.toolsDir, 'engine.cjs');
  await writeFile(probe, `
const { EventEmitter } = require('node:events');
const Engine = require('artillery-engine-pipelock');
const script = { config: { target: ${JSON.stringify(masters.urls.join(','))}, engines: { pipelock: { json: 'out/p-{worker}.json' } } },
  scenarios: [{ name: 'one', engine: 'pipelock', flow: [{ cycle: { keys: 10 } }] }] };
const ee = new EventEmitter();
const engine = new Engine(script, ee, {});
(async () => {
  await engine.init();
  const events = new EventEmitter();
  const counters = {};
  events.on('counter', (name, n) => { counters[name] = (counters[name] || 0) + n; });
  const user = engine.createScenario(script.scenarios[0], events);
  await new Promise((resolve, reject) => user({ vars: {} }, (error) => (error ? reject(error) : resolve())));
  ee.emit('done', {});
  const dir = require('node:fs').readdirSync('out');
  const result = JSON.parse(require('node:fs').readFileSync('out/' + dir[0], 'utf8'));
  console.log(typeof Engine, Engine.name, counters['pipelock.cycles'], result.format, result.cycles, result.mix[0].name);
  setTimeout(() => process.exit(0), 100);
})().catch((e) => { console.error(e); process.exit(1); });
`);
  const { stdout } = await run('node', [probe], { cwd: state.toolsDir });
  assert.is(stdout.trim(), 'function PipelockEngine 1 pipelock-loadtest 1 one');
}));

test.run();
