/**
 * Client instructions per acquire → release cycle, counted by valgrind's callgrind over the client
 * process only (the masters run outside it): a run of `--cycles` less a run of a fifth as many
 * (start-up and JIT compilation cancel), divided by the difference (docs/decisions/0006-lone-calls.md).
 * Instruction counts do not move with the load of a shared machine, where CPU time does.
 *
 *   node --import tsx bench/profile/instructions.ts [--contenders pipelock,pipelock-client,raw-quorum]
 *     [--concurrency 1,4,16,64,512] [--cycles 15000] [--valkey]
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startMasters } from '../../src/testing/masters.js';
import { ROOT } from '../lib/host.js';

const { values } = parseArgs({
  options: {
    contenders: { type: 'string', default: 'pipelock,pipelock-client,raw-quorum' },
    concurrency: { type: 'string', default: '1,4,16,64,512' },
    cycles: { type: 'string', default: '15000' },
    valkey: { type: 'boolean', default: false },
  },
});
const cycles = Number(values.cycles);
const small = Math.round(cycles / 5);
const server = values.valkey ? join(process.env.HOME ?? '', '.cache', 'pipelock', 'valkey-server') : 'redis-server';

/** Instructions of one run of `n` cycles, and the lean counters it printed. */
function count(contender: string, concurrency: number, n: number, urls: string): { instructions: number; lean: Record<string, number> } {
  const args = ['--tool=callgrind', '--callgrind-out-file=/dev/null', 'node', '--import', 'tsx', join(ROOT, 'bench', 'profile', 'cycles.ts'),
    '--contender', contender, '--concurrency', String(concurrency), '--cycles', String(n), '--urls', urls];
  const run = spawnSync('valgrind', args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 26 });
  const collected = /Collected : (\d+)/.exec(run.stderr)?.[1];
  if (run.status !== 0 || collected === undefined) throw new Error(`valgrind ${contender} c${concurrency} n${n} failed:\n${run.stderr.slice(-2000)}`);
  return { instructions: Number(collected), lean: JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Record<string, number> };
}

const masters = await startMasters({ count: 5, redisServer: server });
try {
  const urls = masters.urls.join(',');
  console.log(`server ${values.valkey ? 'valkey' : 'redis-server'}; instructions per cycle = (I(${cycles}) - I(${small})) / ${cycles - small}`);
  for (const concurrency of values.concurrency.split(',').map(Number)) {
    for (const contender of values.contenders.split(',')) {
      const big = count(contender, concurrency, cycles, urls);
      const little = count(contender, concurrency, small, urls);
      const per = (big.instructions - little.instructions) / (cycles - small);
      const writes = (big.lean.writes! - little.lean.writes!) / (cycles - small) / 5;
      const reads = (big.lean.reads! - little.lean.reads!) / (cycles - small) / 5;
      console.log(`c${concurrency}\t${contender}\t${(per / 1000).toFixed(1)}k instr/cycle\tlean writes/cycle/master ${writes.toFixed(3)}\treply chunks/cycle/master ${reads.toFixed(3)}`);
      await Promise.all(masters.masters.map((master) => master.flush()));
    }
  }
} finally {
  await masters.close();
}
