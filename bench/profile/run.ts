/**
 * `npm run bench:profile`: where the µs of one acquire → release cycle go, client and Redis side.
 * pipelock as users install it (dist/, built by the npm script: no dev loader in the profile) runs
 * a fixed number of cycles at a fixed concurrency on 5 local masters, under V8's sampling profiler
 * (node:inspector, 100 µs interval); the masters' own counters (CONFIG RESETSTAT, then
 * INFO commandstats and cpu) say what Redis spent. Writes bench/results/profile.json for
 * bench:report. Absolute µs move with the machine; the shares are what to read.
 *   --concurrency N (64)  --cycles N (200000)  --contender pipelock|raw-quorum (pipelock)  --out FILE (bench/results/profile.json)
 *   --commands auto|native|scripts (pipelock's setting; auto)  PIPELOCK_REDIS_SERVER=…/valkey-server profiles on Valkey
 *   PROFILE_DUMP=FILE writes V8's raw profile too (per-function self times)
 * `--contender raw-quorum` profiles the per-command quorum ceiling (raw @redis/client doing the same work), the
 * yardstick of the one-lock-at-a-time figures: bench:profile:c1 writes both at concurrency 1 for bench:report.
 */
import { Session } from 'node:inspector/promises';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startMasters } from '../../src/testing/masters.js';
import { hostInfo, ROOT } from '../lib/host.js';
import { openInfoClients } from '../peers/redis-cpu.js';
import { REFUSED } from '../peers/contender.js';
import { openContender, pipelockContender } from '../peers/adapters.js';
import type { Contender } from '../peers/contender.js';
import { categorize, redisRows, selfTimes, type CpuProfile, type ProfileResult } from './analyze.js';

const { values } = parseArgs({
  options: {
    concurrency: { type: 'string', default: '64' },
    cycles: { type: 'string', default: '200000' },
    contender: { type: 'string', default: 'pipelock' },
    commands: { type: 'string', default: 'auto' },
    out: { type: 'string', default: join(ROOT, 'bench', 'results', 'profile.json') },
  },
});
const concurrency = Number(values.concurrency);
const cycles = Number(values.cycles);
const contenderId = values.contender;
if (!(Number.isInteger(concurrency) && concurrency > 0) || !(Number.isInteger(cycles) && cycles > 0) || !['pipelock', 'raw-quorum'].includes(contenderId)) {
  console.error('usage: bench/profile/run.ts [--concurrency N] [--cycles N] [--contender pipelock|raw-quorum] [--out FILE]');
  process.exit(2);
}
const kMasters = 5;
const kWarmupCycles = 40_000;

const { Redlock } = await import(join(ROOT, 'dist', 'index.js')) as typeof import('../../src/index.js');
const masters = await startMasters({ count: kMasters });
const info = await openInfoClients(masters.urls);
const commands = values.commands as 'auto' | 'native' | 'scripts';
const redlock = contenderId === 'pipelock' ? new Redlock(masters.urls, { retryCount: 0, nodeTimeout: 5_000, commands }) : undefined;
let contender: Contender | undefined;
try {
  const active = redlock === undefined ? await openContender(contenderId, masters.urls) : await pipelockContender(redlock);
  contender = active;
  const run = async (n: number, prefix: string): Promise<void> => {
    let next = 0;
    const loop = async (): Promise<void> => {
      while (next < n) {
        const lock = await active.acquire(`${prefix}:${next++}`);
        if (lock === REFUSED) throw new Error('a unique key was refused');
        await active.release(lock);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, loop));
  };
  await run(kWarmupCycles, 'warm');
  await Promise.all(info.map((c) => c.sendCommand(['CONFIG', 'RESETSTAT'])));
  const cpuBefore = await Promise.all(info.map((c) => c.sendCommand(['INFO', 'cpu'])));
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await run(cycles, 'p');
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const { profile } = await session.post('Profiler.stop') as { profile: CpuProfile };
  session.disconnect();
  const after = await Promise.all(info.map((c) => c.sendCommand(['INFO', 'commandstats', 'cpu'])));
  if (process.env.PROFILE_DUMP !== undefined) await writeFile(process.env.PROFILE_DUMP, JSON.stringify(profile));
  const client = categorize(selfTimes(profile), cycles);
  const redis = redisRows(cpuBefore.map(String), after.map(String), cycles);
  const result: ProfileResult = {
    host: hostInfo(['@redis/client'], `npm run bench:profile -- --concurrency ${concurrency} --cycles ${cycles} --contender ${contenderId}`),
    contender: contenderId,
    concurrency,
    cycles,
    cyclesPerSec: cycles / (ms / 1000),
    processCpuUsPerCycle: (cpu.user + cpu.system) / cycles,
    systemCpuUsPerCycle: cpu.system / cycles,
    client,
    redis,
  };
  await writeFile(values.out, `${JSON.stringify(result, null, 1)}\n`);
  console.log(`bench:profile (${contenderId}): ${cycles} cycles at ${concurrency} in flight, ${Math.round(result.cyclesPerSec)} cycles/s; client ${result.processCpuUsPerCycle.toFixed(2)} µs/cycle (process), Redis ${redis.totalUsPerCycle.toFixed(2)} µs/cycle (5 masters)`);
  for (const row of client.rows) console.log(`  client ${row.share.toFixed(3)}  ${row.usPerCycle.toFixed(2)} µs  ${row.name}`);
  for (const row of redis.rows) console.log(`  redis  ${row.usPerCycle.toFixed(2)} µs  ${row.name}`);
} finally {
  // The contender's close() quits its Redlock or its raw clients.
  await (contender?.close() ?? redlock?.quit());
  for (const c of info) c.destroy();
  await masters.close();
}
