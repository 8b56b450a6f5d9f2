/**
 * Runs the named test tiers: every file of test/<tier>/**\/*.test.ts (or a variant tier's listed
 * files) in its own child process, several at once, each file's output printed whole when it ends;
 * the checks `typecheck`, `lint` and `check` (npm scripts) run in the same pool, beside the tests. It ends
 * with the failures by file, each tier's wall time and one line, `N passed, N failed[, N skipped]`,
 * summed over the tiers. Exits 1 when anything failed, 2 on bad arguments.
 */
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { running, runJob, runPool, type Job, type Limits, type Outcome, type Tally } from './tests/job.js';
import { transpile } from './tests/transpile.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const setup = pathToFileURL(join(root, 'test', 'helpers', 'setup.ts')).href;
/** Test processes load the run's transpiled modules through this (scripts/tests/transpile.ts), not tsx. */
const loader = pathToFileURL(join(root, 'scripts', 'tests', 'loader', 'register.mjs')).href;
const timesPath = join(root, '.tmp', 'test-times.json');
/** Each file's CPU on its last run (test processes and their servers), for finding where the suite's time goes. */
const cpuPath = join(root, '.tmp', 'test-cpu.json');
const kTestFile = /\.test\.ts$/;
/** The servers and tools each tier needs, by the script that finds (or installs) them. */
const kNeeds: Readonly<Record<string, readonly string[]>> = {
  // artillery-run.test.ts runs the real `artillery run`, installed on demand rather than by npm ci (~460 MB).
  integration: ['scripts/ensure-redis.sh', 'scripts/ensure-artillery.sh'],
  package: ['scripts/ensure-redis.sh'],
  valkey: ['scripts/ensure-redis.sh', 'scripts/ensure-valkey.sh'],
};
const kDefaultTimeoutMs = 10 * 60_000;
/** npm scripts run as jobs; `check` is both of the others in one process (scripts/check.ts), as npm test runs them. */
const kChecks = new Set(['typecheck', 'lint', 'check']);
/** Tiers whose files keep a core busy rather than wait on servers: at most one per core at a time. */
const kCpuTiers = new Set(['unit', 'package']);
/**
 * Processes at once per core, as long as the shares of a core they keep busy fit the cores (Limits.cores). Two per
 * core with no such sum (--jobs 4 on 2 cores, 2026-11-29) failed files that judge timing under contention: four CPU-bound
 * files on two cores. With it, a fifth process is a file that mostly waits.
 */
const kJobsPerCore = 2.5;
/**
 * Files whose outcome rests on timing or on order across processes, which contention moves: each
 * has a core to itself (the others beside it keep within the cores less one), one such file at a time.
 */
const kQuietFiles = new Set(['election-threads.test.ts', 'stall.test.ts', 'gate.test.ts', 'cluster-waiting.test.ts']);

/** A tier that reruns listed files of another tier's directory with its own environment. */
interface Variant {
  readonly dir: string;
  readonly files: readonly string[];
  readonly env: Readonly<Record<string, string>>;
}

const kVariants: Readonly<Record<string, Variant>> = {
  // The integration files whose outcome rests on server behaviour Valkey could implement
  // differently from Redis 7.0: the transports and scripts, tracking invalidations that wake waiters
  // (standalone and per cluster shard), the held-lock guard, handover and passing, faults
  // (stop, pause, restart empty), fencing, and the lock kinds (the election's waiting, record and
  // term counter across worker threads among them). Their masters are Valkey
  // (test/helpers/valkey.ts); the rest of the integration tier tests pipelock, not the server.
  valkey: {
    dir: 'integration',
    files: [
      'redlock', 'ioredis', 'lean-script', 'waiting', 'gate', 'cluster-waiting', 'held-watch', 'handover', 'pass',
      'redlock-faults', 'late-grant', 'fencing', 'reentrant', 'rwlock', 'semaphore', 'election', 'election-threads', 'error-replies',
      'extend-auto-kinds', 'combinations', 'key-prefix', 'election-road',
    ].map((name) => `${name}.test.ts`),
    env: { PIPELOCK_TEST_SERVER: 'valkey' },
  },
};

const kDefaultJobs = Math.max(2, Math.floor(availableParallelism() * kJobsPerCore));
const usage = `usage: node --import tsx scripts/run-tests.ts [--jobs N] [--timeout-ms N] <tier>...

Runs every test/<tier>/**/*.test.ts in its own process, --jobs at a time, over all the tiers named.
The tier valkey runs chosen test/integration files against Valkey masters (npm run ensure-valkey);
the tiers typecheck, lint and check (both in one process) run those npm scripts in the same pool.
  --jobs N         processes at most at once (default ${kDefaultJobs}: ${kJobsPerCore} per core; PIPELOCK_TEST_JOBS sets it too),
                   as long as the shares of a core they used last time add up to at most the cores;
                   of them at most one per core CPU-bound (checks, unit and package files)
  --timeout-ms N   stop a file that runs longer than N ms (default ${kDefaultTimeoutMs})
  --help           show this`;

function fail(message: string): never {
  console.error(`run-tests: ${message}\n\n${usage}`);
  process.exit(2);
}

function positive(raw: string | undefined, name: string, fallback: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) <= 0) fail(`${name} must be a positive integer, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

function parseCommandLine(): { tiers: string[]; timeoutMs: number; jobs: number } {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: { 'timeout-ms': { type: 'string' }, jobs: { type: 'string' }, help: { type: 'boolean' } },
    });
  } catch (error) {
    fail((error as Error).message);
  }
  if (parsed.values.help === true) {
    console.log(usage);
    process.exit(0);
  }
  const timeoutMs = positive(parsed.values['timeout-ms'], '--timeout-ms (milliseconds)', kDefaultTimeoutMs);
  const jobs = positive(parsed.values.jobs ?? process.env.PIPELOCK_TEST_JOBS, '--jobs (or PIPELOCK_TEST_JOBS)', kDefaultJobs);
  if (parsed.positionals.length === 0) fail('name at least one tier, e.g. unit integration');
  for (const tier of parsed.positionals) {
    if (!/^[\w-]+$/.test(tier)) fail(`a tier is a directory under test/, valkey, typecheck, lint or check, got ${JSON.stringify(tier)}`);
  }
  return { tiers: parsed.positionals, timeoutMs, jobs };
}

async function testFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && kTestFile.test(entry.name))
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

/** The jobs of one tier: a check, every test file of its directory, or a variant's listed files. */
async function planTier(tier: string): Promise<Job[]> {
  if (kChecks.has(tier))
    return [{ tier, name: `npm run ${tier}`, command: 'npm', args: ['run', '--silent', tier], env: {}, check: true, cpu: true,
      quiet: false }];
  const variant = kVariants[tier];
  const dir = join('test', variant?.dir ?? tier);
  const isDir = await stat(join(root, dir)).then((stats) => stats.isDirectory(), () => false);
  if (!isDir) fail(`tier ${JSON.stringify(tier)} has no directory ${dir}`);
  const files = await testFiles(join(root, dir));
  // A listed file that was renamed or removed fails the run rather than quietly leaving the tier.
  const missing = variant?.files.filter((file) => !files.includes(file)) ?? [];
  if (missing.length > 0) fail(`tier ${tier} lists ${missing.join(', ')}, not found in ${dir}`);
  const args = ['--conditions=pipelock-source', '--enable-source-maps', '--import', loader, '--import', setup];
  return (variant?.files ?? files).map((file) => ({
    tier, name: join(dir, file), command: process.execPath, args: [...args, join(dir, file)], env: variant?.env ?? {}, check: false,
      cpu: kCpuTiers.has(tier), quiet: kQuietFiles.has(file),
  }));
}

/** A run's record: the last run's (`path`, under .tmp/), else on a fresh clone a run's copy kept in scripts/tests/`kept`. */
async function record(path: string, kept: string): Promise<Record<string, number>> {
  const saved = await readFile(path, 'utf8')
    .catch(() => readFile(join(root, 'scripts', 'tests', kept), 'utf8'))
    .catch(() => '{}');
  return JSON.parse(saved) as Record<string, number>;
}

/**
 * Each job's last duration, to start the longest first (a file neither record names goes first), and the share of a
 * core it kept busy then (its CPU over its time; a check, a CPU-bound tier or a file never measured: a whole core).
 */
async function order(jobs: Job[]): Promise<Job[]> {
  const [times, cpu] = await Promise.all([record(timesPath, 'times.json'), record(cpuPath, 'cpu.json')]);
  const key = (job: Job): string => `${job.tier} ${job.name}`;
  const last = (job: Job): number => (job.check ? Infinity : times[key(job)] ?? Infinity);
  const share = (job: Job): number | undefined => {
    const used = cpu[key(job)];
    return job.check || job.cpu || used === undefined || !Number.isFinite(last(job)) ? undefined : used / last(job);
  };
  return jobs.map((job, i) => ({ job, i })).sort((a, b) => last(b.job) - last(a.job) || a.i - b.i)
    .map(({ job }) => ({ ...job, share: share(job) }));
}

async function saveTimes(outcomes: readonly Outcome[]): Promise<void> {
  const times = JSON.parse(await readFile(timesPath, 'utf8').catch(() => '{}')) as Record<string, number>;
  for (const { job, startedMs, endedMs } of outcomes) times[`${job.tier} ${job.name}`] = Math.round(endedMs - startedMs);
  await mkdir(dirname(timesPath), { recursive: true });
  await writeFile(timesPath, `${JSON.stringify(times, null, 1)}\n`);
  const cpu = JSON.parse(await readFile(cpuPath, 'utf8').catch(() => '{}')) as Record<string, number>;
  for (const { job, cpuMs } of outcomes) if (cpuMs !== undefined) cpu[`${job.tier} ${job.name}`] = Math.round(cpuMs);
  await writeFile(cpuPath, `${JSON.stringify(cpu, null, 1)}\n`);
}

/** How many of the costliest files the summary lists. */
const kCostliest = 8;

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

function report(outcome: Outcome): void {
  const { job, tally, problem, output } = outcome;
  const mark = tally.failed > 0 ? '✘' : '✔';
  const counts =
    job.check ? (problem ?? 'ok') : `${tally.passed} passed, ${tally.failed} failed${problem === undefined ? '' : `; ${problem}`}`;
  const label = job.tier === 'valkey' ? `${job.name} on valkey` : job.name;
  process.stdout.write(`\n${mark} ${label} (${seconds(outcome.endedMs - outcome.startedMs)}): ${counts}\n${output.trimEnd()}\n`);
}

/** The closing block: failures by file, each tier's wall time, the totals. */
function summarise(tiers: readonly string[], outcomes: readonly Outcome[], wallMs: number, interrupted: string | undefined): Tally {
  const total: Tally = { passed: 0, failed: 0, skipped: 0 };
  for (const { tally } of outcomes) {
    total.passed += tally.passed;
    total.failed += tally.failed;
    total.skipped += tally.skipped;
  }
  const failed = outcomes.filter(({ tally }) => tally.failed > 0);
  if (failed.length > 0) {
    console.log(`\nFailed (${failed.length} file${failed.length === 1 ? '' : 's'}; the output of each is above):`);
    for (const { job, tally, problem, output } of failed) {
      const names = [...output.matchAll(/FAIL {2}(?:.* )?"(.*)"$/gm)].map((match) => match[1]!);
      const which = names.length > 0 ? ` (${names.join('; ')})` : '';
      console.log(`  ✘ ${job.name}${job.tier === 'valkey' ? ' on valkey' : ''}: `
        + `${job.check ? problem : `${tally.failed} failed${which}`}${!job.check && problem ? `; ${problem}` : ''}`);
    }
  }
  console.log('\nWall time per tier (they overlap), and the CPU its test processes and their servers used:');
  for (const tier of tiers) {
    const mine = outcomes.filter(({ job }) => job.tier === tier);
    if (mine.length === 0) continue;
    const span = Math.max(...mine.map((o) => o.endedMs)) - Math.min(...mine.map((o) => o.startedMs));
    const busy = mine.reduce((sum, o) => sum + o.endedMs - o.startedMs, 0);
    const cpu = mine.some((o) => o.cpuMs !== undefined) ? `, CPU ${seconds(mine.reduce((sum, o) => sum + (o.cpuMs ?? 0), 0))}` : '';
    console.log(`  ${tier.padEnd(12)} ${seconds(span).padStart(8)}  (${mine.length} job${mine.length === 1 ? '' : 's'}, `
      + `${seconds(busy)} summed${cpu})`);
  }
  console.log(`  ${'all'.padEnd(12)} ${seconds(wallMs).padStart(8)}`);
  const costly = outcomes.filter((o) => o.cpuMs !== undefined).sort((a, b) => b.cpuMs! - a.cpuMs!).slice(0, kCostliest);
  if (costly.length > 0) {
    console.log(`The ${costly.length} test files that used the most CPU (where a faster suite starts):`);
    for (const o of costly) console.log(`  ${seconds(o.cpuMs!).padStart(8)}  ${o.job.name}${o.job.tier === 'valkey' ? ' on valkey' : ''}`);
  }
  if (interrupted !== undefined) {
    console.error(`run-tests: interrupted by ${interrupted}`);
    total.failed = Math.max(total.failed, 1);
  }
  return total;
}

/**
 * Runs the ensure scripts the tiers need before any test starts, so that a missing server stops
 * the run in seconds with the script's hint (the command to run) rather than failing file by file.
 */
function preflight(tiers: readonly string[]): void {
  const scripts = [...new Set(tiers.flatMap((tier) => kNeeds[tier] ?? []))];
  for (const script of scripts) {
    const result = spawnSync('bash', [join(root, script)], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    if (result.status === 0) continue;
    process.stderr.write(result.stderr || `${result.error?.message ?? ''}\n`);
    const needing = tiers.filter((tier) => kNeeds[tier]?.includes(script));
    console.error(`run-tests: ${needing.join(', ')} need${needing.length === 1 ? 's' : ''} what ${script} provides (see above); `
      + `no test was run`);
    process.exit(1);
  }
}

async function main(): Promise<void> {
  const { tiers, timeoutMs, jobs: concurrency } = parseCommandLine();
  preflight(tiers);
  const planned: Job[] = [];
  for (const tier of tiers) {
    const jobs = await planTier(tier);
    if (jobs.length === 0) console.log(`▷ ${tier}: no *.test.ts files yet, skipped`);
    planned.push(...jobs);
  }
  let interrupted: NodeJS.Signals | undefined;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      interrupted = signal;
      for (const child of running) child.kill(signal);
    });
  }
  const cores = Math.min(concurrency, availableParallelism());
  const limits: Limits = { total: concurrency, cpu: cores, cores };
  console.log(`run-tests: ${planned.length} jobs (${tiers.join(', ')}), at most ${limits.total} at a time while the shares of a core `
    + `they used last time fit ${cores} cores, of them at most ${limits.cpu} CPU-bound (checks, unit and package files)`);
  const started = performance.now();
  // Inherited by the test processes and theirs: where the loader finds the transpiled modules.
  const js = join(root, '.tmp', `test-js-${process.pid}`);
  process.env.PIPELOCK_TEST_JS = js;
  if (planned.some((job) => !job.check)) {
    const count = await transpile(root, js);
    console.log(`run-tests: ${count} modules transpiled in ${seconds(performance.now() - started)} (${relative(root, js)})`);
  }
  const outcomes = await runPool(await order(planned), limits, (job) => runJob(job, root, timeoutMs), report,
    () => interrupted !== undefined).finally(() => rm(js, { recursive: true, force: true }));
  const total = summarise(tiers, outcomes, performance.now() - started, interrupted);
  if (interrupted === undefined) await saveTimes(outcomes);
  console.log(`\n${total.passed} passed, ${total.failed} failed${total.skipped > 0 ? `, ${total.skipped} skipped` : ''}`);
  process.exitCode = total.failed > 0 ? 1 : 0;
}

await main();
