/**
 * One harness for every contender: the same 5 local masters, the same workloads, each measurement
 * in a fresh child process (bench/peers/run-one.ts), one at a time, interleaved: every contender
 * once per configuration, then all again, with the starting contender rotating per repetition.
 * FLUSHALL between measurements. A cluster configuration runs the contenders that can on local
 * Redis Clusters (masters only), a Valkey one its own contenders on 5 Valkey masters; each set of
 * servers is started once before its first measurement and kept to the end.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { startClusters, type LocalClusters } from '../../src/testing/clusters.js';
import { startMasters, type LocalMasters } from '../../src/testing/masters.js';
import { valkeyServer } from '../../test/helpers/valkey.js';
import { hostInfo, ROOT, type Host } from '../lib/host.js';
import { configById, contenderInfo, contendersOf, repsOf, TTL_MS, type WorkloadConfig } from './contender.js';
import type { RunResult } from './run-one.js';

export interface PeersPlan {
  readonly contenders: readonly string[];
  readonly configs: readonly string[];
  readonly reps: number;
  readonly warmupMs: number;
  readonly durationMs: number;
  readonly masters: number;
  readonly command: string;
}

export interface RunRecord extends Partial<RunResult> {
  readonly contender: string;
  readonly config: string;
  readonly rep: number;
  /** Position within its repetition and configuration. */
  readonly order: number;
  readonly error?: string;
}

export interface PeersResult {
  readonly kind: 'pipelock-bench-peers';
  readonly host: Host;
  readonly plan: PeersPlan & { readonly ttlMs: number };
  readonly runs: readonly RunRecord[];
  readonly finished: string;
  readonly loadavgEnd: number;
}

const runOne = join(ROOT, 'bench', 'peers', 'run-one.ts');

function measure(args: readonly string[], limitMs: number): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--conditions=pipelock-source', '--import', 'tsx', runOne, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (err = (err + chunk.toString('utf8')).slice(-4000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code === 0 && line.startsWith('{')) resolve(JSON.parse(line) as RunResult);
      else reject(new Error(`run-one ${args.slice(0, 4).join(' ')} exited (${signal ?? `code ${String(code)}`}): ${err.trim().split('\n').slice(-5).join(' | ')}`));
    });
  });
}

export async function runPeers(plan: PeersPlan, log: (line: string) => void): Promise<PeersResult> {
  const packages = plan.contenders.flatMap((id) => contenderInfo(id).packages);
  const onValkey = plan.configs.some((id) => configById(id).valkey !== undefined);
  const host = hostInfo(packages, plan.command, onValkey ? valkeyServer() : undefined);
  const local = await startMasters({ count: plan.masters });
  let clusters: LocalClusters | undefined;
  let valkey: LocalMasters | undefined;
  const runs: RunRecord[] = [];
  try {
    const total = plannedRuns(plan);
    const reps = Math.max(...plan.configs.map((id) => repsOf(configById(id), plan.reps)));
    for (let rep = 0; rep < reps; rep++) {
      for (const config of plan.configs) {
        const workload = configById(config);
        // A configuration with more repetitions than --reps (minReps) runs its extra ones interleaved with the others' last.
        if (rep >= repsOf(workload, plan.reps)) continue;
        const contenders = contendersOf(workload, plan.contenders);
        if (workload.cluster !== undefined) clusters ??= await startClusters({ clusters: workload.cluster.members, shards: workload.cluster.shards });
        if (workload.valkey !== undefined) valkey ??= await startMasters({ count: plan.masters, redisServer: valkeyServer() });
        const servers = workload.cluster !== undefined ? clusters!.masters : workload.valkey !== undefined ? valkey! : local;
        const urls = workload.valkey !== undefined ? valkey!.urls.join(',') : serverUrls(workload, local.urls, clusters);
        const n = contenders.length;
        for (let k = 0; k < n; k++) {
          const contender = contenders[(k + rep) % n]!;
          await Promise.all(servers.masters.map((master) => master.flush()));
          const args = ['--contender', contender, '--config', config, '--urls', urls, '--warmup-ms', String(plan.warmupMs), '--duration-ms', String(plan.durationMs)];
          const base = { contender, config, rep, order: k };
          try {
            const result = await measure(args, plan.warmupMs + plan.durationMs + 30_000);
            runs.push({ ...result, ...base });
            const errors = result.errors > 0 ? `, ${result.errors} errors (${result.firstError ?? ''})` : '';
            log(`[${runs.length}/${total}] rep ${rep + 1} ${config} ${contender}: ${Math.round(result.cyclesPerSec)} cycles/s${result.refused > 0 ? `, ${Math.round(result.refusedPerSec)} refused/s` : ''}${errors}`);
          } catch (error) {
            runs.push({ ...base, error: (error as Error).message });
            log(`[${runs.length}/${total}] rep ${rep + 1} ${config} ${contender}: FAILED ${(error as Error).message}`);
          }
        }
      }
    }
  } finally {
    await local.close();
    await clusters?.close();
    await valkey?.close();
  }
  return { kind: 'pipelock-bench-peers', host, plan: { ...plan, ttlMs: TTL_MS }, runs, finished: new Date().toISOString(), loadavgEnd: (await import('node:os')).loadavg()[0] ?? 0 };
}

/** Measurements the plan makes: per configuration its repetitions × the contenders that run in it. */
export function plannedRuns(plan: Pick<PeersPlan, 'configs' | 'contenders' | 'reps'>): number {
  return plan.configs.reduce((sum, id) => {
    const config = configById(id);
    return sum + repsOf(config, plan.reps) * contendersOf(config, plan.contenders).length;
  }, 0);
}

/** run-one's `--urls`: the standalone masters, or per cluster member its shards (members split by `;`). */
function serverUrls(config: WorkloadConfig, masters: readonly string[], clusters: LocalClusters | undefined): string {
  if (config.cluster === undefined) return masters.join(',');
  return clusters!.clusters.map((cluster) => cluster.urls.join(',')).join(';');
}
