/**
 * Renewal cost (issue: batched auto-renewal): for 1k, 10k and 100k held locks on 5 local masters,
 * commands per lock duration, client CPU per duration and heap per held lock, pipelock's scheduler
 * next to node-redlock v5's using(), measured in the same run, each in a fresh process.
 *   npm run bench:renewal [-- --sizes 1000,10000,100000 --duration 6000 --window 18000 --settle MS --reps N --contenders a,b --block-locks 1000 --block 4000 --replace --dist --out FILE]
 * --dist runs the built package (dist/; npm run build first) as users run it: one.ts compiled to plain
 * JavaScript and run without tsx, which renewal 'worker''s thread would otherwise inherit.
 * --reps N: each size measured N times, the contenders taking turns; a row is the median run by client CPU,
 * with every run's client CPU beside it (the worker ÷ in-thread ratio is then the median of the paired ratios).
 * --settle: how long after the locks are held measuring starts (default 0.8 × duration); --out: the
 * result file (default bench/results/renewal.json; bench:report also renders renewal-worker.json).
 * Then the blocked-loop scenario (issue 44): --block-locks locks of 2 s, the loop blocked --block ms,
 * renewal 'main' against 'worker' (--block 0 skips it).
 * Writes bench/results/renewal.json. A run of some contenders or sizes only replaces their rows
 * (and the blocked rows if it ran them): the file's other rows are kept, marked with the run they
 * came from, provided they were measured with the same duration and window; --replace writes
 * this run's rows alone.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import ts from 'typescript';
import { parseArgs } from 'node:util';
import { hostInfo, ROOT } from '../lib/host.js';
import { startMasters } from '../../src/testing/masters.js';
import { medianRow, mergeRenewal, type RenewalResult, type RenewalRow, type BlockedRow } from './render.js';

const { values } = parseArgs({
  options: { sizes: { type: 'string' }, duration: { type: 'string' }, window: { type: 'string' }, contenders: { type: 'string' }, block: { type: 'string' }, 'block-locks': { type: 'string' }, replace: { type: 'boolean' }, dist: { type: 'boolean' }, settle: { type: 'string' }, out: { type: 'string' }, reps: { type: 'string' } },
});
const contenders = (values.contenders ?? 'pipelock,pipelock-watch,pipelock-worker,node-redlock').split(',');
const blockMs = Number(values.block ?? 4000);
const blockLocks = Number(values['block-locks'] ?? 1000);
const sizes = (values.sizes ?? '1000,10000,100000').split(',').map(Number);
// 6 s: at 3 s, renewing 100,000 locks needed more Redis CPU than this 2-core VM has (both contenders lost locks).
const duration = Number(values.duration ?? 6000);
const windowMs = Number(values.window ?? 3 * duration);
const reps = Math.max(1, Number(values.reps ?? 1));
const settleMs = values.settle === undefined ? undefined : Number(values.settle);
const file = resolve(ROOT, values.out ?? 'bench/results/renewal.json');
const previous = values.replace === true || !existsSync(file) ? undefined : JSON.parse(readFileSync(file, 'utf8')) as RenewalResult;
// Checked before measuring: rows of another duration, window or settle are not comparable with this run's.
if (previous !== undefined && (previous.duration !== duration || previous.windowMs !== windowMs || previous.settleMs !== settleMs)) {
  console.error(`bench:renewal: ${file} was measured with duration ${previous.duration} ms, window ${previous.windowMs} ms and settle ${previous.settleMs ?? 'default'}, this run uses ${duration}, ${windowMs} and ${settleMs ?? 'default'}: its other rows cannot be kept beside this run's. Pass the same --duration/--window/--settle, or --replace to write this run's rows alone.`);
  process.exit(2);
}
const masters = await startMasters({ count: 5 });
const rows: RenewalRow[] = [];
const blocked: BlockedRow[] = [];

/** --dist: one.ts as plain JavaScript in .tmp/ (one level down from the root, as bench/renewal/ is two), run without tsx. */
function plainEntry(): string {
  const js = ts.transpileModule(readFileSync(join(ROOT, 'bench/renewal/one.ts'), 'utf8'),
    { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } });
  const entry = join(ROOT, '.tmp/bench-renewal-one.mjs');
  mkdirSync(dirname(entry), { recursive: true });
  writeFileSync(entry, js.outputText.replaceAll("'../../", "'../"));
  return entry;
}
const runner = values.dist === true
  ? ['--expose-gc', '--max-old-space-size=8192', plainEntry(), '--dist']
  : ['--expose-gc', '--max-old-space-size=8192', '--conditions=pipelock-source', '--import', 'tsx', join(ROOT, 'bench/renewal/one.ts')];
const settle = settleMs === undefined ? [] : ['--settle', String(settleMs)];

/** One measurement in a fresh process: its JSON line. */
function one(args: readonly string[]): Record<string, unknown> {
  const out = execFileSync(process.execPath, [...runner, ...args, ...settle, '--urls', masters.urls.join(',')],
    { encoding: 'utf8', cwd: ROOT, timeout: 600_000, stdio: ['ignore', 'pipe', 'inherit'] });
  return JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, unknown>;
}
try {
  for (const locks of sizes) {
    // --reps: the contenders take turns, each rep measuring all of them, so that paired rows share the machine's state.
    const runs = new Map<string, RenewalRow[]>(contenders.map((c) => [c, []]));
    for (let rep = 0; rep < reps; rep++) for (const contender of contenders) {
      await Promise.all(masters.masters.map((m) => m.flush()));
      const row = one(['--contender', contender, '--locks', String(locks), '--duration', String(duration), '--window', String(windowMs)]) as unknown as RenewalRow;
      runs.get(contender)!.push(row);
      console.log(`${contender.padEnd(15)} ${String(locks).padStart(6)} locks: ${String(row.commandsPerDuration).padStart(8)} commands/duration (${row.commandsPerLockPerDuration.toFixed(3)}/lock), client CPU ${row.clientCpuMsPerDuration.toFixed(1)} ms (main loop busy ${(row.mainLoopBusyMsPerDuration ?? 0).toFixed(1)} ms), Redis CPU ${row.redisCpuMsPerDuration.toFixed(1)} ms/duration, heap ${String(row.heapBytesPerLock)} B/lock, lost ${String(row.lost)}`);
    }
    for (const contender of contenders) rows.push(medianRow(runs.get(contender)!));
  }
  for (const contender of blockMs > 0 ? ['pipelock', 'pipelock-worker'] : []) {
    await Promise.all(masters.masters.map((m) => m.flush()));
    const row = one(['--contender', contender, '--locks', String(blockLocks), '--duration', '2000', '--window', '1', '--block', String(blockMs)]) as unknown as BlockedRow;
    blocked.push(row);
    console.log(`${contender.padEnd(15)} ${String(blockLocks).padStart(6)} locks of 2 s, loop blocked ${blockMs} ms: lost ${String(row.lost)}`);
  }
} finally {
  await masters.close();
}
mkdirSync(dirname(file), { recursive: true });
const command = `npm run bench:renewal${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
const result = mergeRenewal({ host: hostInfo(['@redis/client', 'redlock', 'ioredis'], command), duration, windowMs, settleMs, rows, blocked }, previous);
writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
const kept = result.rows.length - rows.length + (result.blocked?.length ?? 0) - blocked.length;
console.log(`wrote ${file}${kept > 0 ? ` (${kept} row(s) of earlier runs kept)` : ''}`);

