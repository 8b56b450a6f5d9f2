/**
 * `npm run bench:kinds`: pipelock's semaphore beside redis-semaphore's Semaphore (one Redis) and
 * RedlockSemaphore (five masters), in the same run on the same masters (bench/kinds/render.ts has
 * the workload). Writes bench/results/kinds.json; `npm run bench:report` renders it. About a minute.
 */
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startMasters } from '../../src/testing/masters.js';
import { withClient } from '../../tools/src/shared/admin.js';
import { hostInfo, ROOT } from '../lib/host.js';
import { KIND_CONTENDERS, kKinds, type KindRun, type KindsResult } from './render.js';

const one = fileURLToPath(new URL('./one.ts', import.meta.url));
const host = hostInfo(['redis-semaphore', 'ioredis', '@redis/client'], 'npm run bench:kinds');
const masters = await startMasters({ count: kKinds.masters });
const runs: (KindRun & { rep: number })[] = [];
try {
  for (let rep = 0; rep < kKinds.reps; rep++) {
    // Interleaved, the starting contender rotated: a busy moment of the machine hits every contender alike.
    for (let i = 0; i < KIND_CONTENDERS.length; i++) {
      const { id } = KIND_CONTENDERS[(i + rep) % KIND_CONTENDERS.length]!;
      await Promise.all(masters.urls.map((url) => withClient(url, (client) => client.sendCommand(['FLUSHALL']))));
      const child = spawnSync(process.execPath, ['--conditions=pipelock-source', '--import', 'tsx', one, id, JSON.stringify(masters.urls)], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
      const line = child.stdout.trim().split('\n').pop() ?? '';
      let run: KindRun;
      try {
        run = JSON.parse(line) as KindRun;
      } catch {
        run = { contender: id, cyclesPerSec: 0, acquireP50Ms: Number.NaN, acquireP99Ms: Number.NaN, most: 0, overLimit: 0, errors: 0, error: (child.stderr || `exit ${String(child.status)}`).trim().split('\n').slice(-3).join(' ') };
      }
      runs.push({ ...run, rep });
      console.log(`bench:kinds rep ${rep + 1}/${kKinds.reps} ${id}: ${run.error ?? `${Math.round(run.cyclesPerSec)} cycles/s, acquire p50 ${run.acquireP50Ms.toFixed(2)} ms p99 ${run.acquireP99Ms.toFixed(2)} ms, most ${run.most} at once, ${run.overLimit} over the limit, ${run.errors} errors`}`);
    }
  }
} finally {
  await masters.close();
}
const result: KindsResult = { kind: 'pipelock-bench-kinds', host, settings: kKinds, runs, finished: new Date().toISOString() };
const file = join(ROOT, 'bench', 'results', 'kinds.json');
await writeFile(file, `${JSON.stringify(result, null, 2)}\n`);
console.log(`bench:kinds: wrote ${file}`);
