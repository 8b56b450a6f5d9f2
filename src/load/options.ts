import { availableParallelism } from 'node:os';
import { defaultSettings } from '../index.js';

/** What one cycle of the load does; see `--help` for each. */
export const OPERATIONS = ['acquire-release', 'acquire-extend-release', 'using', 'renew-hold'] as const;
export type Operation = (typeof OPERATIONS)[number];

/** Which kind of lock each cycle takes; see `--help`. */
export const KINDS = ['mutex', 'semaphore', 'rw'] as const;

/** A load run, every value resolved and validated (times in ms). */
export interface LoadOptions {
  /** Existing masters to drive; empty: start `masters` embedded ones. */
  readonly servers: readonly string[];
  readonly masters: number;
  readonly workers: number;
  /** In-flight cycles per worker (closed loop), or locks held per worker (renew-hold). */
  readonly concurrency: number;
  /** Target cycles/s over all workers (open loop); 0: closed loop. */
  readonly rate: number;
  readonly durationMs: number;
  readonly warmupMs: number;
  readonly keys: number;
  readonly holdMs: number;
  readonly lockMs: number;
  readonly retryCount: number;
  readonly retryDelayMs: number;
  readonly retryJitterMs: number;
  readonly operation: Operation;
  /** mutex: redlock.acquire; semaphore: a permit of `permits`; rw: read locks, every fourth cycle a write lock. */
  readonly kind: 'mutex' | 'semaphore' | 'rw';
  /** Permits per key with `kind: 'semaphore'`. */
  readonly permits: number;
  readonly json: string | undefined;
  readonly html: string | undefined;
  /** Wall-clock start, ms since the epoch, for load generators on several machines; undefined: at once. */
  readonly startAt: number | undefined;
}

export const kLoadDefaults: LoadOptions = Object.freeze({
  servers: Object.freeze([]),
  masters: 5,
  workers: availableParallelism(),
  concurrency: 16,
  rate: 0,
  // Short enough for a first run to finish while one watches; long runs say so.
  durationMs: 10_000,
  warmupMs: 2_000,
  keys: 10_000,
  holdMs: 0,
  lockMs: 5_000,
  retryCount: defaultSettings.retryCount,
  retryDelayMs: defaultSettings.retryDelay,
  retryJitterMs: defaultSettings.retryJitter,
  operation: 'acquire-release',
  kind: 'mutex',
  permits: 8,
  json: undefined,
  html: undefined,
  startAt: undefined,
});

/** `using()` refuses durations within 100 ms of its extension threshold. */
export const kMinUsingLockMs = defaultSettings.automaticExtensionThreshold + 101;

/** The operations that run their routine under `using()` and so need kMinUsingLockMs. */
export function runsUnderUsing(operation: Operation): boolean {
  return operation === 'using' || operation === 'renew-hold';
}
