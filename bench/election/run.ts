/**
 * `npm run bench:election`: failover time of redlock.election(), as `pipelock loadtest --kind
 * election` measures it (tools/src/load/failover.ts), with the settings below on five fresh local
 * masters. Writes bench/results/election.json; `npm run bench:report` renders it. About a minute.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { startMasters } from '../../src/testing/masters.js';
import { runFailover } from '../../tools/src/load/failover.js';
import { kLoadDefaults } from '../../tools/src/load/options.js';
import { hostInfo, ROOT } from '../lib/host.js';
import { kElection, type ElectionResult } from './render.js';

const host = hostInfo(['@redis/client'], 'npm run bench:election');
const masters = await startMasters({ count: kElection.masters });
let result: ElectionResult;
try {
  const options = { ...kLoadDefaults, kind: 'election' as const, lockMs: kElection.lease, holdMs: kElection.holdMs, kills: kElection.kills };
  const failover = await runFailover(options, masters.urls, `bench-election:${randomBytes(4).toString('hex')}`, new AbortController().signal);
  result = { ...failover, host: { ...host, loadavg: [...host.loadavg, loadavg()[0] ?? 0] }, command: `npm run loadtest -- --kind election --lock-duration ${kElection.lease} --hold ${kElection.holdMs} --kills ${kElection.kills}`, finished: new Date().toISOString() };
} finally {
  await masters.close();
}
const file = join(ROOT, 'bench', 'results', 'election.json');
await writeFile(file, `${JSON.stringify(result, null, 2)}\n`);
const f = (n: number): string => n.toFixed(1);
console.log(`bench:election: crash p50 ${f(result.crash.p50)} p99 ${f(result.crash.p99)} max ${f(result.crash.max)} ms (after the lease p50 ${f(result.crashAfterLease.p50)}); ` +
  `resign p50 ${f(result.resign.p50)} p99 ${f(result.resign.p99)} max ${f(result.resign.max)} ms; errors ${JSON.stringify(result.errors)}`);
console.log(`bench:election: wrote ${file}`);
