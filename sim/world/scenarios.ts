import type { Random } from '../diff/random.js';
import type { FaultMix } from './faults.js';
import type { Latency } from './network.js';
import { kinds, mutexes, type Worker } from './workloads.js';

/** What one scenario runs: how many masters and processes, the workload, the faults. */
export interface Scenario {
  readonly name: string;
  readonly masters: number;
  readonly procs: number;
  /** Concurrent workload loops per process. */
  readonly workers: number;
  readonly resources: number;
  /** How long (virtual ms) the faulty phase's workload runs. */
  readonly phaseMs: number;
  readonly flavor: 'redis-7.0' | 'valkey-9';
  readonly faults: (random: Random) => FaultMix;
  readonly workload: (w: Worker, until: number) => Promise<void>;
}

/** The seed's network: mostly sub-ms to a few ms, sometimes slow beyond a node timeout. */
export function latencyOf(random: Random): Latency {
  return random.weighted([
    [2, { minMs: 0.1, maxMs: 1, lateChance: 0.01, lateMaxMs: 50 }],
    [2, { minMs: 0.2, maxMs: 5, lateChance: 0.05, lateMaxMs: 300 }],
    [1, { minMs: 1, maxMs: 20, lateChance: 0.1, lateMaxMs: 600 }],
  ] as const);
}

export const kScenarios: Readonly<Record<string, Scenario>> = {
  mutex: {
    name: 'mutex', masters: 3, procs: 3, workers: 2, resources: 2, phaseMs: 6000, flavor: 'redis-7.0',
    faults: (random) => ({ count: random.between(0, 8), unsafe: false }),
    workload: mutexes,
  },
  'mutex-valkey': {
    name: 'mutex-valkey', masters: 5, procs: 4, workers: 2, resources: 2, phaseMs: 5000, flavor: 'valkey-9',
    faults: (random) => ({ count: random.between(0, 10), unsafe: false }),
    workload: mutexes,
  },
  /** Several callers per process on one resource: locks passed and handed over within a process. */
  handover: {
    name: 'handover', masters: 3, procs: 2, workers: 4, resources: 1, phaseMs: 6000, flavor: 'redis-7.0',
    faults: (random) => ({ count: random.between(2, 10), unsafe: false, dateJumps: 6 }),
    workload: mutexes,
  },
  /** Semaphores (2 permits) and read/write locks. */
  kinds: {
    name: 'kinds', masters: 3, procs: 3, workers: 2, resources: 2, phaseMs: 6000, flavor: 'redis-7.0',
    faults: (random) => ({ count: random.between(0, 8), unsafe: false }),
    workload: kinds,
  },
  unsafe: {
    name: 'unsafe', masters: 3, procs: 3, workers: 2, resources: 1, phaseMs: 6000, flavor: 'redis-7.0',
    faults: (random) => ({ count: random.between(2, 8), unsafe: true }),
    workload: mutexes,
  },
};
