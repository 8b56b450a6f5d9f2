import type { MessagePort } from 'node:worker_threads';
import type { Interval } from './meter.js';
import type { Kind, Operation } from './options.js';
import type { MixEntry, Stage } from './scenario.js';

/** One worker's whole share of the run: its piscina task (plain data plus its message port). */
export interface WorkerTask {
  readonly worker: number;
  /** How many workers the run has (renew-hold spreads its slots' keys over them). */
  readonly workers: number;
  readonly urls: readonly string[];
  readonly operation: Operation;
  readonly kind: Kind;
  readonly depth: number;
  readonly permits: number;
  readonly concurrency: number;
  /** This worker's share of the highest target rate, cycles/s; 0: closed loop. */
  readonly rate: number;
  /** The measured window's stages (one for the flags): total rates, or cycles in flight per worker. */
  readonly stages: readonly Stage[];
  /** A scenario's mix; absent: operation, kind and keys as given. */
  readonly mix?: readonly MixEntry[];
  readonly warmupMs: number;
  readonly durationMs: number;
  readonly keys: number;
  readonly prefix: string;
  readonly holdMs: number;
  readonly lockMs: number;
  readonly retryCount: number;
  readonly retryDelayMs: number;
  readonly retryJitterMs: number;
  /** A custom cycle instead of the operation (the fault benchmark's critical sections). */
  readonly custom?: CustomTask;
  readonly port: MessagePort;
}

/** Main → worker: begin (after every worker is connected), or stop early (Ctrl-C). */
export type ToWorker = { readonly type: 'start' } | { readonly type: 'stop' };

/** Worker → main: connected; then once a second what the last second did (warm-up included). */
export type FromWorker =
  | { readonly type: 'ready'; readonly worker: number }
  | (Interval & {
      readonly type: 'tick';
      readonly worker: number;
      /** 1-based second since the start this interval ends in. */
      readonly second: number;
      readonly warmup: boolean;
      /** What the worker's objects use at the tick, bytes (worker.ts memoryInUse): what is live under --expose-gc. */
      readonly inUse: number;
    });

/**
 * A custom cycle: each worker imports `module` (a URL) and calls its default export, a
 * CustomCycleFactory, with `data` (anything structured-clone can carry, e.g. a SharedArrayBuffer).
 */
export interface CustomTask {
  readonly module: string;
  readonly data: unknown;
}
