/** What bench/contended/run.ts and its worker threads (bench/contended/worker.ts) exchange. */

export interface WorkerInput {
  readonly contender: string;
  readonly urls: readonly string[];
  readonly perThread: number;
  readonly holdMs: number;
  readonly key: string;
  readonly ttlMs: number;
  /** Int32 cells shared by every thread: HOLDERS (the exclusion checker) and STOP. */
  readonly shared: SharedArrayBuffer;
}

export const HOLDERS = 0;
export const STOP = 1;

export interface ThreadReport {
  /** Acquisitions per contender inside the measured window. */
  readonly counts: readonly number[];
  /** Waits of those acquisitions, µs, encoded HdrHistogram (tools/src/load/histogram.ts layout). */
  readonly histogram: string;
  readonly clamped: number;
  /** Acquisitions the library gave up on inside the window, by error code (or name). */
  readonly failures: Readonly<Record<string, number>>;
  readonly releaseFailures: Readonly<Record<string, number>>;
  /** Times a contender came out of acquire() while another held the lock. */
  readonly violations: number;
  /** Contenders still in acquire() at the stop, and the longest of their waits so far, ms. */
  readonly unfinished: number;
  readonly unfinishedMaxMs: number;
}

export type FromWorker = { readonly type: 'ready' } | { readonly type: 'report'; readonly report: ThreadReport } | { readonly type: 'error'; readonly message: string };
export type ToWorker = { readonly type: 'go' } | { readonly type: 'stop' };
