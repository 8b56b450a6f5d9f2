/** Repetitions → medians with spread, per configuration and contender. */
import type { RunRecord } from '../peers/harness.js';
import { pairedRatio, spread, type Spread } from './stats.js';

export interface ContenderSummary {
  readonly cyclesPerSec: Spread;
  readonly refusedPerSec: Spread;
  readonly acquireP50: Spread;
  readonly acquireP99: Spread;
  readonly acquireP999: Spread;
  readonly releaseP50: Spread;
  readonly releaseP99: Spread;
  readonly releaseP999: Spread;
  readonly clientCpuUsPerCycle: Spread;
  /** The kernel's part of it (absent in runs recorded before it was). */
  readonly clientSystemCpuUsPerCycle: Spread;
  readonly redisCpuUsPerCycle: Spread;
  /** Commands the masters executed per cycle (per attempt on the hot key), a script's own calls included. */
  readonly redisCommandsPerCycle: Spread;
  /** Cluster configurations: EVALSHA + EVAL over every shard ÷ cycles. */
  readonly scriptCallsPerCycle: Spread;
  /** Cluster configurations, pipelock: script calls per shard per coalesced tick of its member. */
  readonly scriptCallsPerShardPerTick: Spread;
  /** Cluster configurations, pipelock: lock operations per coalesced tick. */
  readonly opsPerTick: Spread;
  readonly errors: number;
  readonly failedRuns: number;
  /** cycles/s per repetition, in repetition order (NaN where the run failed), for paired ratios. */
  readonly perRep: readonly number[];
}

export type Summary = Record<string, Record<string, ContenderSummary>>;

export function summarize(runs: readonly RunRecord[]): Summary {
  const groups = new Map<string, RunRecord[]>();
  for (const run of runs) {
    const key = `${run.config}\u0000${run.contender}`;
    let group = groups.get(key);
    if (group === undefined) groups.set(key, (group = []));
    group.push(run);
  }
  const out: Summary = {};
  for (const [key, group] of groups) {
    const [config, contender] = key.split('\u0000') as [string, string];
    const ok = group.filter((run) => run.error === undefined && run.cyclesPerSec !== undefined);
    const pick = (f: (run: RunRecord) => number | undefined): Spread => spread(ok.map(f).filter((v): v is number => v !== undefined && Number.isFinite(v)));
    const reps = Math.max(...group.map((run) => run.rep)) + 1;
    const perRep = Array.from({ length: reps }, (_, rep) => group.find((run) => run.rep === rep && run.error === undefined)?.cyclesPerSec ?? NaN);
    (out[config] ??= {})[contender] = {
      cyclesPerSec: pick((r) => r.cyclesPerSec),
      refusedPerSec: pick((r) => r.refusedPerSec),
      acquireP50: pick((r) => r.acquire?.p50),
      acquireP99: pick((r) => r.acquire?.p99),
      acquireP999: pick((r) => r.acquire?.p999),
      releaseP50: pick((r) => r.release?.p50),
      releaseP99: pick((r) => r.release?.p99),
      releaseP999: pick((r) => r.release?.p999),
      clientCpuUsPerCycle: pick((r) => r.clientCpuUsPerCycle),
      clientSystemCpuUsPerCycle: pick((r) => r.clientSystemCpuUsPerCycle),
      redisCpuUsPerCycle: pick((r) => r.redisCpuUsPerCycle),
      redisCommandsPerCycle: pick((r) => r.redisCommandsPerCycle),
      scriptCallsPerCycle: pick((r) => r.cluster === undefined || r.cycles === undefined || r.cycles === 0 ? undefined : r.cluster.scriptCalls / r.cycles),
      // Summed over members, so per member: calls ÷ (shards per member) ÷ (ticks per member).
      scriptCallsPerShardPerTick: pick((r) => r.cluster === undefined || r.cluster.ticks === 0 ? undefined : (r.cluster.scriptCalls * r.cluster.members) / (r.cluster.shards * r.cluster.ticks)),
      opsPerTick: pick((r) => r.cluster === undefined || r.cluster.ticks === 0 ? undefined : r.cluster.operations / r.cluster.ticks),
      errors: ok.reduce((sum, run) => sum + (run.errors ?? 0), 0),
      failedRuns: group.length - ok.length,
      perRep,
    };
  }
  return out;
}

/** a's cycles/s over b's in one configuration: the median of per-repetition ratios (see pairedRatio). */
export function ratio(summary: Summary, config: string, a: string, b: string): number {
  const x = summary[config]?.[a];
  const y = summary[config]?.[b];
  if (x === undefined || y === undefined) return NaN;
  return pairedRatio(x.perRep, y.perRep);
}
