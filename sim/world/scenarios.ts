import type { Random } from '../diff/random.js';
import type { FaultMix } from './faults.js';
import type { Latency } from './network.js';
import { elections } from './elections.js';
import { reentrants } from './reentrant.js';
import { kHeartbeatBound, workerHolds } from './renewal-worker.js';
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
  /** Each process's wall clock set up to this many ms from the others' (default: together). */
  readonly clockSpreadMs?: number;
  /** The busy phase's network, instead of the seed's profile. */
  readonly latency?: Latency;
  /** The processes' Redlock settings over the run's defaults (run.ts). */
  readonly settings?: { readonly renewal?: 'main' | 'worker'; readonly heartbeatBound?: number };
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
  /**
   * Campaigners (three per process, so leaderships pass within a process), leaders proclaiming and
   * resigning, leader() readers; every fault but wall-clock jumps, so the campaigners' clocks agree.
   */
  election: {
    name: 'election', masters: 3, procs: 3, workers: 3, resources: 1, phaseMs: 8000, flavor: 'redis-7.0',
    faults: (random) => ({ count: random.between(2, 10), unsafe: false, dateJumps: 0 }),
    workload: elections,
  },
  /**
   * Elections whose campaigners' wall clocks are up to a minute apart, with masters restarted empty
   * (their counters lost) and no other fault: every master that is up answers within a few ms, so a
   * raise meets the counter any survivor kept, and terms must not go back (review-r4 item 4).
   */
  'election-restarts': {
    name: 'election-restarts', masters: 3, procs: 3, workers: 2, resources: 1, phaseMs: 9000, flavor: 'redis-7.0',
    faults: (random) => ({ count: random.between(2, 5), unsafe: false, only: 'restart' }),
    workload: elections,
    clockSpreadMs: 60_000,
    latency: { minMs: 0.1, maxMs: 5, lateChance: 0, lateMaxMs: 0 },
  },
  /** Reentrant holders: nested using() inside an auto-extended lock, the loop blocked now and then. */
  reentrant: {
    name: 'reentrant', masters: 3, procs: 3, workers: 2, resources: 2, phaseMs: 6000, flavor: 'redis-7.0',
    faults: (random) => ({ count: random.between(0, 8), unsafe: false }),
    workload: reentrants,
  },
  /**
   * Renewal 'worker' (issue 44): each process's renewals run in its worker, a simulated process of
   * its own that a blocked main loop does not stop, bounded by the main thread's heartbeat.
   */
  worker: {
    name: 'worker', masters: 3, procs: 3, workers: 2, resources: 2, phaseMs: 6000, flavor: 'redis-7.0',
    faults: (random) => ({ count: random.between(0, 8), unsafe: false }),
    workload: workerHolds,
    settings: { renewal: 'worker', heartbeatBound: kHeartbeatBound },
  },
  unsafe: {
    name: 'unsafe', masters: 3, procs: 3, workers: 2, resources: 1, phaseMs: 6000, flavor: 'redis-7.0',
    faults: (random) => ({ count: random.between(2, 8), unsafe: true }),
    workload: mutexes,
  },
};
