/**
 * Runs each named test tier (test/<tier>/**\/*.test.ts, or a variant tier's listed files) with uvu
 * in its own child process, streams its output, and ends with one line,
 * `N passed, N failed[, N skipped]`, summed over the tiers. Exits 1 when anything failed, 2 on bad
 * arguments.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const uvuBin = join(root, 'node_modules', 'uvu', 'bin.js');
const setup = pathToFileURL(join(root, 'test', 'helpers', 'setup.ts')).href;
const kTestFile = /\.test\.ts$/;
const kDefaultTimeoutMs = 10 * 60_000;
const kKillGraceMs = 5_000;
const kTailChars = 16_384;

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

const usage = `usage: node --import tsx scripts/run-tests.ts [--timeout-ms N] <tier>...

Runs uvu on test/<tier> (files *.test.ts) for each tier, one child process per tier.
The tier valkey runs chosen test/integration files against Valkey masters (npm run ensure-valkey).
  --timeout-ms N   kill a tier that runs longer than N ms (default ${kDefaultTimeoutMs})
  --help           show this`;

interface Tally {
  passed: number;
  failed: number;
  skipped: number;
}

function fail(message: string): never {
  console.error(`run-tests: ${message}\n\n${usage}`);
  process.exit(2);
}

function parseCommandLine(): { tiers: string[]; timeoutMs: number } {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: { 'timeout-ms': { type: 'string' }, help: { type: 'boolean' } },
    });
  } catch (error) {
    fail((error as Error).message);
  }
  if (parsed.values.help === true) {
    console.log(usage);
    process.exit(0);
  }
  const rawTimeout = parsed.values['timeout-ms'];
  const timeoutMs = rawTimeout === undefined ? kDefaultTimeoutMs : Number(rawTimeout);
  if (rawTimeout !== undefined && (!/^\d+$/.test(rawTimeout) || timeoutMs <= 0)) {
    fail(`--timeout-ms must be a positive integer (milliseconds), got ${JSON.stringify(rawTimeout)}`);
  }
  if (parsed.positionals.length === 0) fail('name at least one tier, e.g. unit integration');
  for (const tier of parsed.positionals) {
    if (!/^[\w-]+$/.test(tier)) fail(`a tier is a directory name under test/ or valkey, got ${JSON.stringify(tier)}`);
  }
  return { tiers: parsed.positionals, timeoutMs };
}

async function testFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile() && kTestFile.test(entry.name)).map((entry) => entry.name);
}

/** uvu's closing block: "Total: N / Passed: N / Skipped: N"; the last one printed wins. */
export function parseSummary(output: string): { total: number; passed: number; skipped: number } | undefined {
  // eslint-disable-next-line no-control-regex -- stripping ANSI colour codes, should any slip through
  const plain = output.replace(/\u001b\[[0-9;]*m/g, '');
  const matches = [...plain.matchAll(/Total:\s+(\d+)\s+Passed:\s+(\d+)\s+Skipped:\s+(\d+)/g)];
  const last = matches.at(-1);
  if (last === undefined) return undefined;
  return { total: Number(last[1]), passed: Number(last[2]), skipped: Number(last[3]) };
}

/** What a SIGINT/SIGTERM handler needs: the running tier's child, and whether to stop. */
const run: { child: ChildProcess | undefined; interrupted: NodeJS.Signals | undefined } = {
  child: undefined,
  interrupted: undefined,
};

/** One tier's run: uvu on `dir` for the files `pattern` matches, with `env` added. */
interface Plan {
  readonly label: string;
  readonly dir: string;
  readonly pattern: string;
  readonly files: number;
  readonly env: Readonly<Record<string, string>>;
}

async function planTier(tier: string): Promise<Plan> {
  const variant = kVariants[tier];
  const dir = relative(root, join(root, 'test', variant?.dir ?? tier));
  const isDir = await stat(join(root, dir)).then((stats) => stats.isDirectory(), () => false);
  if (!isDir) fail(`tier ${JSON.stringify(tier)} has no directory ${dir}`);
  const files = await testFiles(join(root, dir));
  if (variant === undefined) return { label: dir, dir, pattern: kTestFile.source, files: files.length, env: {} };
  // A listed file that was renamed or removed fails the run rather than quietly leaving the tier.
  const missing = variant.files.filter((file) => !files.includes(file));
  if (missing.length > 0) fail(`tier ${tier} lists ${missing.join(', ')}, not found in ${dir}`);
  const names = variant.files.map((file) => file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return { label: `${dir} on ${tier}`, dir, pattern: `^(?:${names.join('|')})$`, files: variant.files.length, env: variant.env };
}

async function runTier(plan: Plan, timeoutMs: number): Promise<Tally> {
  const { label, files: fileCount } = plan;
  console.log(`\n▶ ${label} (${fileCount} file${fileCount === 1 ? '' : 's'})`);
  const env: NodeJS.ProcessEnv = { ...process.env, ...plan.env, NO_COLOR: '1' };
  // Node warns when both are set, and uvu's colours would get in the way of parsing its summary.
  delete env.FORCE_COLOR;
  const child = spawn(
    process.execPath,
    ['--conditions=pipelock-source', '--import', 'tsx', '--import', setup, uvuBin, plan.dir, plan.pattern, '--no-color'],
    { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  run.child = child;
  let tail = '';
  child.stdout.on('data', (chunk: Buffer) => {
    process.stdout.write(chunk);
    tail = (tail + chunk.toString('utf8')).slice(-kTailChars);
  });

  let timedOut = false as boolean; // set by the timer below
  let killer: NodeJS.Timeout | undefined;
  const timer = setTimeout(() => {
    timedOut = true;
    console.error(`\nrun-tests: ${label} ran past --timeout-ms ${timeoutMs}; stopping it`);
    // SIGTERM first: the child's own handlers then stop the redis-servers it started.
    child.kill('SIGTERM');
    killer = setTimeout(() => child.kill('SIGKILL'), kKillGraceMs);
  }, timeoutMs);

  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
    child.once('close', (exitCode, exitSignal) => {
      resolve([exitCode, exitSignal]);
    });
  });
  clearTimeout(timer);
  clearTimeout(killer);
  run.child = undefined;

  const summary = parseSummary(tail);
  const tally: Tally = summary
    ? { passed: summary.passed, failed: summary.total - summary.passed, skipped: summary.skipped }
    : { passed: 0, failed: 0, skipped: 0 };
  const exit = signal ?? `code ${String(code)}`;
  // Every way a tier can go wrong counts as at least one failure, so the last line and the exit
  // status always agree.
  const problem = timedOut
    ? `timed out after ${timeoutMs} ms`
    : summary === undefined
      ? `exited (${exit}) without uvu's summary`
      : code !== 0 && tally.failed === 0
        ? `exited (${exit}) although its tests passed: an unhandled error or an early exit, see above`
        : summary.total === 0
          ? `ran 0 tests from ${fileCount} test file(s)`
          : undefined;
  if (problem !== undefined) {
    console.error(`run-tests: ${label} ${problem}`);
    tally.failed = Math.max(tally.failed, 1);
  }
  return tally;
}

async function main(): Promise<void> {
  const { tiers, timeoutMs } = parseCommandLine();
  const plans: Plan[] = [];
  for (const tier of tiers) plans.push(await planTier(tier));

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      run.interrupted = signal;
      run.child?.kill(signal);
    });
  }

  const total: Tally = { passed: 0, failed: 0, skipped: 0 };
  for (const plan of plans) {
    if (run.interrupted) break;
    if (plan.files === 0) {
      console.log(`\n▷ ${plan.dir}: no *.test.ts files yet, skipped`);
      continue;
    }
    const tally = await runTier(plan, timeoutMs);
    total.passed += tally.passed;
    total.failed += tally.failed;
    total.skipped += tally.skipped;
  }

  if (run.interrupted) {
    console.error(`run-tests: interrupted by ${run.interrupted}`);
    total.failed = Math.max(total.failed, 1);
  }
  console.log(
    `\n${total.passed} passed, ${total.failed} failed${total.skipped > 0 ? `, ${total.skipped} skipped` : ''}`,
  );
  process.exitCode = total.failed > 0 ? 1 : 0;
}

await main();
