import { availableParallelism } from 'node:os';
import { defaultSettings } from 'pipelock';
import type { Kind, Operation } from './names.js';
import type { MixEntry, Stage } from './scenario.js';
import type { Threshold } from './thresholds.js';

export { KINDS, OPERATIONS, type Kind, type Operation } from './names.js';

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
  /** mutex: acquire; reentrant: ReentrantRedlock, `depth` deep; semaphore: a permit of `permits`; rw: read, every fourth a write. */
  readonly kind: Kind;
  /** --kind reentrant: acquisitions per cycle, the outermost and depth − 1 nested inside it. */
  readonly depth: number;
  /** Permits per key with `kind: 'semaphore'`. */
  readonly permits: number;
  /** `kind: 'election'`: leader deaths of each sort measured (crashes and resigns, alternately). */
  readonly kills: number;
  /** A scenario file's stages and mix (--scenario); undefined: one stage and one entry, from the flags. */
  readonly stages: readonly Stage[] | undefined;
  readonly mix: readonly MixEntry[] | undefined;
  /** The scenario file, as given. */
  readonly scenario: string | undefined;
  /**
   * --sweep: raise --rate by `step` ('x1.5' or '+500') for at most `steps` steps while the thresholds hold; a failed
   * step is run up to `confirm` more times and holds when most of its runs held.
   */
  readonly sweep: { readonly step: string; readonly steps: number; readonly confirm: number } | undefined;
  /** An OTLP/HTTP metrics endpoint (http://host:4318/v1/metrics) to export to each second. */
  readonly otlp: string | undefined;
  /** Rules the run must meet (--threshold), judged each second and at the end. */
  readonly thresholds: readonly Threshold[];
  /** Stop the run when a threshold fails in a second past `abortGraceMs` of measuring. */
  readonly abortOnFail: boolean;
  readonly abortGraceMs: number;
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
  depth: 2,
  permits: 8,
  kills: 30,
  stages: undefined,
  mix: undefined,
  scenario: undefined,
  sweep: undefined,
  otlp: undefined,
  thresholds: Object.freeze([]),
  abortOnFail: false,
  abortGraceMs: 1_000,
  json: undefined,
  html: undefined,
  startAt: undefined,
});

/** The leases an election run accepts: its renew deadline (lease / 3) and retry period (that / 2.5) must be whole ms. */
export const kMinLeaseMs = 100;

/** `using()` refuses durations within 100 ms of its extension threshold. */
export const kMinUsingLockMs = defaultSettings.automaticExtensionThreshold + 101;

/** The operations that run their routine under `using()` and so need kMinUsingLockMs. */
export function runsUnderUsing(operation: Operation): boolean {
  return operation === 'using' || operation === 'renew-hold';
}
