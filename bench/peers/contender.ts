import { flushDelayOf } from './flush-delay.js';

/** What the workload drives: one lock library (or ceiling), connected to the benchmark's masters. */
export interface Contender {
  /** Resolves to the held lock, or REFUSED when the masters refused it (no retry). Throws on anything else. */
  acquire(key: string): Promise<unknown>;
  release(lock: unknown): Promise<void>;
  close(): Promise<void>;
  /**
   * Resolves once every reply to what was sent before has been read (bench:ci): a release returns
   * at the quorum, while the slowest masters' replies, and on a busy machine a backlog of them,
   * are still to come.
   */
  drain?(): Promise<void>;
}

export type DrainableContender = Contender & { drain(): Promise<void> };

export const REFUSED: unique symbol = Symbol('refused');

export interface ContenderInfo {
  readonly id: string;
  readonly label: string;
  /** npm packages whose versions the host line records. */
  readonly packages: readonly string[];
  readonly kind: 'pipelock' | 'ceiling' | 'peer';
  readonly note: string;
  /** Also measured on Redis Cluster members (configurations with `cluster`), and how. */
  readonly onCluster?: string;
  /** Measured only on Valkey configurations: on redis-server 7.0 it would run what `pipelock` runs. */
  readonly valkeyOnly?: true;
  /** Measured only when named in --contenders (it needs more than this checkout). */
  readonly optIn?: true;
}

export const CONTENDERS: readonly ContenderInfo[] = [
  { id: 'pipelock', label: 'pipelock', packages: ['@redis/client'], kind: 'pipelock', note: 'public API, retryCount 0, coalescing on (default)', onCluster: '`{ cluster: [seed URLs] }` per member: an @redis/client cluster' },
  { id: 'pipelock-ioredis', label: 'pipelock over ioredis', packages: ['ioredis'], kind: 'pipelock', note: 'as pipelock, handed ioredis clients (a node-redlock v5 user\'s)', onCluster: 'an ioredis `Cluster` per member' },
  { id: 'pipelock-uncoalesced', label: 'pipelock (coalesce: false)', packages: ['@redis/client'], kind: 'pipelock', note: 'one script call per operation per master' },
  { id: 'pipelock-scripts', label: "pipelock (commands: 'scripts')", packages: ['@redis/client'], kind: 'pipelock', note: 'Lua scripts for every owner-checked operation, as on servers without SET IFEQ / DELIFEQ', valkeyOnly: true },
  { id: 'pipelock-native', label: "pipelock (commands: 'native')", packages: ['@redis/client'], kind: 'pipelock', note: 'native commands for every single-key operation, acquisitions of a tick included (one SET NX PX each)', valkeyOnly: true },
  { id: 'pipelock-client', label: "pipelock (connection: 'client')", packages: ['@redis/client'], kind: 'pipelock', note: 'as pipelock, on @redis/client connections instead of its own lean ones (round 3\'s path)' },
  { id: 'pipelock-scripts-client', label: "pipelock (commands: 'scripts', connection: 'client')", packages: ['@redis/client'], kind: 'pipelock', note: 'Lua scripts on @redis/client connections: round 3\'s script path', valkeyOnly: true, optIn: true },
  { id: 'pipelock-ioredis-lean', label: "pipelock over ioredis (connection: 'lean')", packages: ['ioredis'], kind: 'pipelock', note: 'handed ioredis clients, sending on lean connections opened from their options', optIn: true },
  { id: 'pipelock-other', label: 'pipelock from --other-root', packages: ['@redis/client'], kind: 'pipelock', note: 'another checkout\'s src/ (e.g. a worktree of the old main), as pipelock: a paired before/after run', optIn: true },
  { id: 'raw-coalesced', label: 'ceiling: coalesced, quorum', packages: ['@redis/client'], kind: 'ceiling', note: 'SET NX / compare-and-delete gathered per master per tick into one EVALSHA; returns at the quorum' },
  { id: 'raw-quorum', label: 'ceiling: per command, quorum', packages: ['@redis/client'], kind: 'ceiling', note: 'SET NX PX to all, EVALSHA compare-and-delete to all; returns at the quorum', onCluster: 'each command sent by an @redis/client cluster client to the key\'s shard' },
  { id: 'raw-all', label: 'ceiling: per command, all', packages: ['@redis/client'], kind: 'ceiling', note: 'as above, waits for all N replies' },
  { id: 'node-redlock', label: 'redlock 5.0.0-beta.2', packages: ['redlock', 'ioredis'], kind: 'peer', note: 'ioredis, retryCount 0, no using()', onCluster: 'an ioredis `Cluster` per member, as its README suggests' },
  { id: 'node-redlock-v4', label: 'redlock 4.2.0', packages: ['redlock4', 'ioredis'], kind: 'peer', note: 'node-redlock v4 (npm alias redlock4), ioredis, retryCount 0, lock() → unlock()' },
  { id: 'sesamecare-redlock', label: '@sesamecare-oss/redlock', packages: ['@sesamecare-oss/redlock', 'ioredis'], kind: 'peer', note: 'ioredis, retryCount 0, no using()' },
  { id: 'redis-semaphore', label: 'redis-semaphore RedlockMutex', packages: ['redis-semaphore', 'ioredis'], kind: 'peer', note: 'ioredis, acquireAttemptsLimit 1, retryInterval 0, refreshInterval 0' },
  { id: 'redlock-universal', label: 'redlock-universal RedLock', packages: ['redlock-universal', 'ioredis'], kind: 'peer', note: 'ioredis (IoredisAdapter, its 5 s per-command timeout timer by default), createRedlock per key, retryAttempts 0' },
];

export const QUORUM_CEILING = 'raw-quorum';
export const PEERS: readonly string[] = CONTENDERS.filter((c) => c.kind === 'peer').map((c) => c.id);

export function contenderInfo(id: string): ContenderInfo {
  const delay = flushDelayOf(id);
  if (delay !== undefined) {
    return { id, label: `pipelock, flushes held ${delay} µs`, packages: ['@redis/client'], kind: 'pipelock', optIn: true,
      note: `as pipelock, each tick's flush held ${delay} µs after it fell due by turning the event loop (bench/peers/flush-delay.ts)` };
  }
  const info = CONTENDERS.find((c) => c.id === id);
  if (info === undefined) {
    throw new Error(`unknown contender ${JSON.stringify(id)}; known: ${CONTENDERS.map((c) => c.id).join(', ')}, pipelock-flush-<µs>`);
  }
  return info;
}

/** The workloads, all closed-loop: `concurrency` loops, each acquire → release → next, no think time. */
export interface WorkloadConfig {
  readonly id: string;
  readonly label: string;
  readonly concurrency: number;
  /** Keys drawn uniformly at random; 1 = one hot key. */
  readonly keys: number;
  /** Run on `members` local Redis Clusters of `shards` masters each instead of the standalone masters. */
  readonly cluster?: { readonly members: number; readonly shards: number };
  /** Run on Valkey masters (scripts/ensure-valkey.sh) instead of redis-server, with only these contenders. */
  readonly valkey?: { readonly contenders: readonly string[] };
  /**
   * Repetitions at least, whatever `--reps` says: at low concurrency a cycle is a few hundred µs
   * and a busy neighbour's second moves one repetition by several percent, so the paired ratios
   * need more pairs to settle.
   */
  readonly minReps?: number;
}

/** On Valkey: pipelock's automatic choice, each path forced, a before/after pair's other side, and the per-command ceiling. */
const VALKEY_CONTENDERS = ['pipelock', 'pipelock-client', 'pipelock-scripts', 'pipelock-scripts-client', 'pipelock-native', 'pipelock-other', 'raw-quorum'];

export const CONFIGS: readonly WorkloadConfig[] = [
  { id: 'c1', label: 'concurrency 1, 1M keys', concurrency: 1, keys: 1_000_000, minReps: 5 },
  { id: 'c4', label: 'concurrency 4, 1M keys', concurrency: 4, keys: 1_000_000, minReps: 5 },
  { id: 'c16', label: 'concurrency 16, 1M keys', concurrency: 16, keys: 1_000_000, minReps: 5 },
  { id: 'c64', label: 'concurrency 64, 1M keys', concurrency: 64, keys: 1_000_000 },
  { id: 'c512', label: 'concurrency 512, 1M keys', concurrency: 512, keys: 1_000_000 },
  { id: 'hot64', label: 'concurrency 64, one hot key', concurrency: 64, keys: 1 },
  { id: 'valkey1', label: 'Valkey 9: concurrency 1, 1M keys', concurrency: 1, keys: 1_000_000, minReps: 5, valkey: { contenders: VALKEY_CONTENDERS } },
  { id: 'valkey64', label: 'Valkey 9: concurrency 64, 1M keys', concurrency: 64, keys: 1_000_000, valkey: { contenders: VALKEY_CONTENDERS } },
  { id: 'valkey512', label: 'Valkey 9: concurrency 512, 1M keys', concurrency: 512, keys: 1_000_000, valkey: { contenders: VALKEY_CONTENDERS } },
  { id: 'cluster64', label: 'Redis Cluster members: concurrency 64, 1M keys, 3 clusters × 3 shards', concurrency: 64, keys: 1_000_000, cluster: { members: 3, shards: 3 } },
];

/** The contenders of `contenders` that run in `config` (on cluster members, only those that can; on Valkey, its own list). */
export function contendersOf(config: WorkloadConfig, contenders: readonly string[]): string[] {
  if (config.valkey !== undefined) return contenders.filter((id) => config.valkey!.contenders.includes(id) || flushDelayOf(id) !== undefined);
  if (config.cluster !== undefined) return contenders.filter((id) => contenderInfo(id).onCluster !== undefined);
  return contenders.filter((id) => contenderInfo(id).valkeyOnly !== true);
}

/** How many repetitions `config` runs when `--reps` asks for `reps`. */
export function repsOf(config: WorkloadConfig, reps: number): number {
  return Math.max(reps, config.minReps ?? 0);
}

export function configById(id: string): WorkloadConfig {
  const config = CONFIGS.find((c) => c.id === id);
  if (config === undefined) throw new Error(`unknown config ${JSON.stringify(id)}; known: ${CONFIGS.map((c) => c.id).join(', ')}`);
  return config;
}

/** Lock TTL for every contender: long enough that no lock expires while held. */
export const TTL_MS = 10_000;
