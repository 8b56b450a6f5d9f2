/**
 * The peer benchmark: every contender, every configuration, interleaved repetitions; writes
 * bench/results/peers.json (BENCHMARKS.md is generated from it by bench/report.ts).
 *
 *   node --import tsx bench/peers/run.ts [--reps 3 (5 at least at concurrency 1, 4, 16)] [--duration-ms 5000] [--warmup-ms 1000]
 *     [--contenders a,b (also pipelock-flush-<µs>: flushes held, docs/decisions/0013)] [--configs c1,c64,cluster64] [--out bench/results/peers.json]
 *     [--other-root DIR (with --contenders …,pipelock-other: DIR's src/ measured beside this one)]
 *
 * cluster64 runs pipelock and the contenders that can (contender.ts `onCluster`) on three local
 * Redis Clusters of three shards each.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from '../lib/host.js';
import { CONFIGS, CONTENDERS, configById, contenderInfo } from './contender.js';
import { plannedRuns, runPeers } from './harness.js';

const { values } = parseArgs({
  options: {
    reps: { type: 'string', default: '3' },
    'duration-ms': { type: 'string', default: '5000' },
    'warmup-ms': { type: 'string', default: '1000' },
    contenders: { type: 'string', default: CONTENDERS.filter((c) => c.optIn !== true).map((c) => c.id).join(',') },
    'other-root': { type: 'string' },
    configs: { type: 'string', default: CONFIGS.map((c) => c.id).join(',') },
    out: { type: 'string', default: join(ROOT, 'bench', 'results', 'peers.json') },
  },
});

function positive(name: string, raw: string): number {
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`--${name} must be a positive integer, got ${JSON.stringify(raw)}`);
  return value;
}

const contenders = values.contenders.split(',').map((id) => contenderInfo(id).id);
if (contenders.includes('pipelock-other') !== (values['other-root'] !== undefined)) {
  throw new Error('--other-root DIR and the contender pipelock-other go together: DIR is the checkout whose src/ pipelock-other measures');
}
if (values['other-root'] !== undefined) {
  const root = resolve(values['other-root']);
  if (!existsSync(join(root, 'src', 'index.ts'))) throw new Error(`--other-root: ${root} has no src/index.ts`);
  // The measuring children inherit it (harness.ts spawns them with this process's environment).
  process.env.PIPELOCK_OTHER_ROOT = root;
}
const configs = values.configs.split(',').map((id) => configById(id).id);
const command = `node --import tsx bench/peers/run.ts ${process.argv.slice(2).join(' ')}`.trim();
const plan = {
  contenders,
  configs,
  reps: positive('reps', values.reps),
  warmupMs: positive('warmup-ms', values['warmup-ms']),
  durationMs: positive('duration-ms', values['duration-ms']),
  masters: 5,
  command,
};
// On a cluster configuration only the contenders that run on cluster members are measured.
const runs = plannedRuns(plan);
console.log(`peers: ${runs} measurements of ${plan.warmupMs} + ${plan.durationMs} ms (≈ ${Math.ceil((runs * (plan.warmupMs + plan.durationMs + 700)) / 60_000)} min)`);
const result = await runPeers(plan, (line) => { console.log(line); });
await mkdir(dirname(values.out), { recursive: true });
await writeFile(values.out, `${JSON.stringify(result, null, 1)}\n`);
console.log(`peers: wrote ${relative(ROOT, values.out)}`);
const failed = result.runs.filter((run) => run.error !== undefined).length;
if (failed > 0) {
  console.error(`peers: ${failed} measurement(s) failed; see "error" in the JSON`);
  process.exitCode = 1;
}
