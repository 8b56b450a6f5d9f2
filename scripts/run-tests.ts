/**
 * Runs each named test tier (test/<tier>/**\/*.test.ts) with uvu in its own child process, streams
 * its output, and ends with one line, `N passed, N failed[, N skipped]`, summed over the tiers.
 * Exits 1 when anything failed, 2 on bad arguments.
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

const usage = `usage: node --import tsx scripts/run-tests.ts [--timeout-ms N] <tier>...

Runs uvu on test/<tier> (files *.test.ts) for each tier, one child process per tier.
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
    if (!/^[\w-]+$/.test(tier)) fail(`a tier is a directory name under test/, got ${JSON.stringify(tier)}`);
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

async function runTier(tier: string, fileCount: number, timeoutMs: number): Promise<Tally> {
  const dir = relative(root, join(root, 'test', tier));
  console.log(`\n▶ ${dir} (${fileCount} file${fileCount === 1 ? '' : 's'})`);
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  // Node warns when both are set, and uvu's colours would get in the way of parsing its summary.
  delete env.FORCE_COLOR;
  const child = spawn(
    process.execPath,
    ['--conditions=pipelock-source', '--import', 'tsx', '--import', setup, uvuBin, dir, kTestFile.source, '--no-color'],
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
    console.error(`\nrun-tests: ${dir} ran past --timeout-ms ${timeoutMs}; stopping it`);
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
    console.error(`run-tests: ${dir} ${problem}`);
    tally.failed = Math.max(tally.failed, 1);
  }
  return tally;
}

async function main(): Promise<void> {
  const { tiers, timeoutMs } = parseCommandLine();
  const plan: { tier: string; files: number }[] = [];
  for (const tier of tiers) {
    const dir = join(root, 'test', tier);
    const isDir = await stat(dir).then((stats) => stats.isDirectory(), () => false);
    if (!isDir) fail(`tier ${JSON.stringify(tier)} has no directory test/${tier}`);
    plan.push({ tier, files: (await testFiles(dir)).length });
  }

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      run.interrupted = signal;
      run.child?.kill(signal);
    });
  }

  const total: Tally = { passed: 0, failed: 0, skipped: 0 };
  for (const { tier, files } of plan) {
    if (run.interrupted) break;
    if (files === 0) {
      console.log(`\n▷ test/${tier}: no *.test.ts files yet, skipped`);
      continue;
    }
    const tally = await runTier(tier, files, timeoutMs);
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
