/**
 * Overload (issues 13, 47): a burst of N acquisitions on distinct keys issued at once, then the release
 * of every lock at once, for each N and retryCount, pipelock beside redis-semaphore and node-redlock v5 in the same run, each burst in a
 * fresh process (bench/overload/one.ts) on the same 5 local masters, FLUSHALL before each; then
 * `pipelock loadtest` closed loop and open loop at twice its rate (bench/overload/open-loop.ts).
 *   npm run bench:overload [-- --sizes 10000,20000,100000 --retries 0,10 --contenders pipelock,redis-semaphore,node-redlock --open-seconds 10]
 * Writes bench/results/overload.json; bench/report.ts renders it into BENCHMARKS.md.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { hostInfo, ROOT } from '../lib/host.js';
import { startMasters } from '../../src/testing/masters.js';
import { OVERLOAD_CONTENDERS, type OverloadResult, type OverloadRow } from './render.js';
import { openLoop, type OpenLoopResult } from './open-loop.js';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,20000,100000' },
    retries: { type: 'string', default: '0,10' },
    contenders: { type: 'string', default: OVERLOAD_CONTENDERS.join(',') },
    'open-seconds': { type: 'string', default: '10' },
    out: { type: 'string', default: join(ROOT, 'bench', 'results', 'overload.json') },
  },
});
const list = (name: string, raw: string): number[] => raw.split(',').map((v) => {
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`--${name} must be a list of integers ≥ 0, got ${JSON.stringify(raw)}`);
  return n;
});
const sizes = list('sizes', values.sizes);
const retries = list('retries', values.retries);
const contenders = values.contenders.split(',');
for (const c of contenders) if (!OVERLOAD_CONTENDERS.includes(c)) throw new Error(`unknown contender ${JSON.stringify(c)}; known: ${OVERLOAD_CONTENDERS.join(', ')}`);
const kLimitMs = 300_000;
const command = `npm run bench:overload${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
const host = hostInfo(['@redis/client', 'redlock', 'redis-semaphore', 'ioredis'], command);

function burst(args: readonly string[]): Promise<OverloadRow> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--max-old-space-size=8192', '--conditions=pipelock-source', '--import', 'tsx', join(ROOT, 'bench', 'overload', 'one.ts'), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (err = (err + chunk.toString('utf8')).slice(-4000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), kLimitMs);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code === 0 && line.startsWith('{')) resolve(JSON.parse(line) as OverloadRow);
      else reject(new Error(`exited (${signal ?? `code ${String(code)}`}${signal === 'SIGKILL' ? `, over ${kLimitMs / 1000} s` : ''}): ${err.trim().split('\n').slice(-3).join(' | ')}`));
    });
  });
}

const masters = await startMasters({ count: 5 });
const rows: OverloadRow[] = [];
try {
  for (const n of sizes) {
    for (const retryCount of retries) {
      for (const contender of contenders) {
        await Promise.all(masters.masters.map((m) => m.flush()));
        const args = ['--contender', contender, '--n', String(n), '--retry', String(retryCount), '--urls', masters.urls.join(',')];
        try {
          const row = await burst(args);
          rows.push(row);
          const errors = Object.entries(row.errors ?? {}).map(([code, k]) => `${code} ${k}`).join(', ');
          console.log(`${contender.padEnd(15)} N ${String(n).padStart(6)} retry ${String(retryCount).padStart(2)}: ${row.acquired} acquired in ${((row.elapsedMs ?? 0) / 1000).toFixed(2)} s, ` +
            `${row.commandsPerLock?.toFixed(1) ?? '–'} commands/lock, heap peak ${(row.heapUsedPeakMB ?? 0).toFixed(0)} MB used / ${(row.heapTotalPeakMB ?? 0).toFixed(0)} MB total${errors === '' ? '' : `; ${errors}`}`);
          const half = row.release;
          if (half !== undefined) {
            console.log(`${''.padEnd(15)} released ${half.released} in ${(half.elapsedMs / 1000).toFixed(2)} s, ${half.commandsPerLock?.toFixed(1) ?? '–'} commands/release, ` +
              `${half.failed} failed, ${half.keysLeft} keys left`);
          }
        } catch (error) {
          rows.push({ contender, n, retryCount, error: (error as Error).message });
          console.log(`${contender.padEnd(15)} N ${String(n).padStart(6)} retry ${String(retryCount).padStart(2)}: FAILED ${(error as Error).message}`);
        }
      }
    }
  }
} finally {
  await masters.close();
}
const openSeconds = Number(values['open-seconds']);
let open: OpenLoopResult | undefined;
if (openSeconds > 0) {
  open = await openLoop(openSeconds);
  console.log(`open loop: closed ${Math.round(open.closed.throughput)} cycles/s; at --rate ${open.rate}: ${Math.round(open.open.throughput)} cycles/s ` +
    `(${(100 * open.open.throughput / open.closed.throughput).toFixed(0)}%), ${open.open.late} late, ${open.open.errors} errors, acquire p99 ${(open.open.acquireP99Us / 1000).toFixed(1)} ms`);
}
const result: OverloadResult = { kind: 'pipelock-bench-overload', host, masters: 5, ttl: 30_000, rows, ...(open === undefined ? {} : { open }), finished: new Date().toISOString(), loadavgEnd: loadavg()[0] ?? 0 };
mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
writeFileSync(values.out, `${JSON.stringify(result, null, 1)}\n`);
console.log(`wrote ${values.out}`);
