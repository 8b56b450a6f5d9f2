/**
 * Renewal cost (issue: batched auto-renewal): for 1k, 10k and 100k held locks on 5 local masters,
 * commands per lock duration, client CPU per duration and heap per held lock, pipelock's scheduler
 * next to node-redlock v5's using(), measured in the same run, each in a fresh process.
 *   npm run bench:renewal [-- --sizes 1000,10000,100000 --duration 6000 --window 18000 --contenders a,b --block-locks 1000 --block 4000 --replace --dist]
 * --dist runs the built package (dist/; npm run build first), as users run it: from source, renewal
 * 'worker' also starts a tsx module-hooks thread that a user's process does not have.
 * Then the blocked-loop scenario (issue 44): --block-locks locks of 2 s, the loop blocked --block ms,
 * renewal 'main' against 'worker' (--block 0 skips it).
 * Writes bench/results/renewal.json. A run of some contenders or sizes only replaces their rows
 * (and the blocked rows if it ran them): the file's other rows are kept, marked with the run they
 * came from, provided they were measured with the same duration and window; --replace writes
 * this run's rows alone.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { hostInfo, ROOT } from '../lib/host.js';
import { startMasters } from '../../src/testing/masters.js';
import { mergeRenewal, type RenewalResult, type RenewalRow, type BlockedRow } from './render.js';

const { values } = parseArgs({
  options: { sizes: { type: 'string' }, duration: { type: 'string' }, window: { type: 'string' }, contenders: { type: 'string' }, block: { type: 'string' }, 'block-locks': { type: 'string' }, replace: { type: 'boolean' }, dist: { type: 'boolean' } },
});
const contenders = (values.contenders ?? 'pipelock,pipelock-watch,pipelock-worker,node-redlock').split(',');
const blockMs = Number(values.block ?? 4000);
const blockLocks = Number(values['block-locks'] ?? 1000);
const sizes = (values.sizes ?? '1000,10000,100000').split(',').map(Number);
// 6 s: at 3 s, renewing 100,000 locks needed more Redis CPU than this 2-core VM has (both contenders lost locks).
const duration = Number(values.duration ?? 6000);
const windowMs = Number(values.window ?? 3 * duration);
const file = join(ROOT, 'bench/results/renewal.json');
const previous = values.replace === true || !existsSync(file) ? undefined : JSON.parse(readFileSync(file, 'utf8')) as RenewalResult;
// Checked before measuring: rows of another duration or window are not comparable with this run's.
if (previous !== undefined && (previous.duration !== duration || previous.windowMs !== windowMs)) {
  console.error(`bench:renewal: ${file} was measured with duration ${previous.duration} ms and window ${previous.windowMs} ms, this run uses ${duration} and ${windowMs}: its other rows cannot be kept beside this run's. Pass the same --duration/--window, or --replace to write this run's rows alone.`);
  process.exit(2);
}
const masters = await startMasters({ count: 5 });
const rows: RenewalRow[] = [];
const blocked: BlockedRow[] = [];

/** One measurement in a fresh process: its JSON line. */
function one(args: readonly string[]): Record<string, unknown> {
  const out = execFileSync(process.execPath, [
    '--expose-gc', '--max-old-space-size=8192', '--conditions=pipelock-source', '--import', 'tsx', join(ROOT, 'bench/renewal/one.ts'), ...args, ...(values.dist === true ? ['--dist'] : []), '--urls', masters.urls.join(','),
  ], { encoding: 'utf8', cwd: ROOT, timeout: 600_000, stdio: ['ignore', 'pipe', 'inherit'] });
  return JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, unknown>;
}
try {
  for (const locks of sizes) {
    for (const contender of contenders) {
      await Promise.all(masters.masters.map((m) => m.flush()));
      const row = one(['--contender', contender, '--locks', String(locks), '--duration', String(duration), '--window', String(windowMs)]) as unknown as RenewalRow;
      rows.push(row);
      console.log(`${contender.padEnd(15)} ${String(locks).padStart(6)} locks: ${String(row.commandsPerDuration).padStart(8)} commands/duration (${row.commandsPerLockPerDuration.toFixed(3)}/lock), client CPU ${row.clientCpuMsPerDuration.toFixed(1)} ms (main loop busy ${(row.mainLoopBusyMsPerDuration ?? 0).toFixed(1)} ms), Redis CPU ${row.redisCpuMsPerDuration.toFixed(1)} ms/duration, heap ${String(row.heapBytesPerLock)} B/lock, lost ${String(row.lost)}`);
    }
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
mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
const command = `npm run bench:renewal${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
const result = mergeRenewal({ host: hostInfo(['@redis/client', 'redlock', 'ioredis'], command), duration, windowMs, rows, blocked }, previous);
writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
const kept = result.rows.length - rows.length + (result.blocked?.length ?? 0) - blocked.length;
console.log(`wrote ${file}${kept > 0 ? ` (${kept} row(s) of earlier runs kept)` : ''}`);

