import { fairnessOf, fifoBound, mergeFairness, mergeWaits, type Fairness, type FifoBound, type WaitReport,
  type WaitResult } from './contention.js';
import { encode, mergeEncoded, summarize, type LatencySummary } from './histogram.js';
import { addCounts, countOf, openCounts, sum } from './counts.js';
import type { HostLine } from './host.js';
import type { Sweep } from './sweep-result.js';

/** The latencies measured, each over completed cycles only, so every count equals `cycles` (extend: when the operation extends). */
export const OP_NAMES = ['acquire', 'extend', 'release', 'cycle'] as const;
export type OpName = (typeof OP_NAMES)[number];

/** Counted cycles, and the failed ones by error `code` (or name): of a run, a worker or a part. */
export interface Counted {
  readonly cycles: number;
  readonly errors: Readonly<Record<string, number>>;
}

/** What a worker measured of one part of a run (one mix entry, or one stage): plain data. */
export interface PartReport extends Counted {
  readonly histograms: Readonly<Record<OpName, string>>;
}

/** One mix entry's or one stage's counted cycles: the same figures as the run's, for its share. */
export interface PartResult extends Counted {
  /** The entry's name, or the stage's description ("2s ramp to 400/s"). */
  readonly name: string;
  readonly throughput: number;
  readonly operations: Readonly<Record<OpName, OperationResult>>;
}

/** What a worker returns: plain data only (histograms encoded), so it crosses threads and files as is. */
export interface WorkerReport extends Counted {
  readonly worker: number;
  /** Acquisitions (won or failed) that lost at least one attempt to another holder, and the attempts so lost. */
  readonly contendedAcquires: number;
  readonly lostAttempts: number;
  readonly clamped: number;
  readonly histograms: Readonly<Record<OpName, string>>;
  /** Acquire latency split by attempts, and attempts per acquisition; absent when attempts are unknown (using()). */
  readonly waits?: WaitReport;
  /** Acquisitions won in the measured window by each closed-loop slot; absent with no fixed contenders. */
  readonly won?: readonly number[];
  /** Open loop: cycles due inside the window that did not complete inside it; absent for closed loops. */
  readonly late?: number;
  /** Open loop: cycles due inside the window, and those the generator started late (kLateStartMs) or never. */
  readonly due?: number;
  readonly lateStarts?: number;
  /** Counted cycles by mix entry and by stage, when the run had more than one of either. */
  readonly mix?: readonly PartReport[];
  readonly stages?: readonly PartReport[];
  /** process.cpuUsage() over the worker's measured window: the whole process's, as threads share it. */
  readonly cpuUserMs: number;
  readonly cpuSystemMs: number;
  /** The worker thread's own event-loop utilization over the measured window, 0..1. */
  readonly elu: number;
  readonly measuredMs: number;
}

export interface OperationResult extends LatencySummary {
  /** hdr-histogram-js compressed base64, µs. */
  readonly histogram: string;
}

export interface TimelinePoint {
  /** Seconds since the start (warm-up included). */
  readonly second: number;
  readonly cycles: number;
  readonly errors: number;
  readonly warmup: boolean;
  /** Under a second: the last interval, cut by the run's end or a stop; not a rate, so charts leave it out (absent in older files). */
  readonly partial?: boolean;
}

/** A run's measured window on the wall clock (ISO times): what `report merge` checks overlap on. */
export interface MeasuredWindow {
  readonly run: number;
  readonly from: string;
  readonly to: string;
}

export interface WorkerSummary extends Omit<WorkerReport,
  'histograms' | 'errors' | 'waits' | 'won' | 'late' | 'due' | 'lateStarts' | 'mix' | 'stages'> {
  readonly run: number;
  readonly errors: number;
}

export interface CpuSummary {
  readonly run: number;
  readonly userMs: number;
  readonly systemMs: number;
  readonly seconds: number;
  /** (user + system) / wall time: 200 means two cores busy. */
  readonly percentOfOneCore: number;
}

/** The full result of one run, or of several merged (`runs` > 1, one host line each). */
export interface RunResult {
  readonly format: 'pipelock-loadtest';
  readonly version: 1;
  readonly runs: number;
  readonly interrupted: boolean;
  readonly hosts: readonly HostLine[];
  readonly measuredSeconds: number;
  readonly cycles: number;
  /** Completed cycles per second; for merged runs (run side by side on several machines) the sum. */
  readonly throughput: number;
  /** Open loop: cycles due in the window not done by its end (the backlog past what the masters served); absent for closed loops. */
  readonly late?: number;
  /** Open loop: cycles due in the window, and those started over kLateStartMs late or never (k6's dropped_iterations). */
  readonly due?: number;
  readonly lateStarts?: number;
  readonly errors: Readonly<Record<string, number>>;
  readonly contendedAcquires: number;
  readonly lostAttempts: number;
  /**
   * The acquisitions won split into those that took more than one attempt and those that won at their
   * first, and attempts per acquisition. Absent under using() (its attempts are unknown) and in files
   * written before they were recorded: the file stays version 1, as every field before is unchanged.
   */
  readonly waits?: WaitResult;
  /** Acquisitions won per contender (closed loop); absent for open loops, renew-hold and older files. */
  readonly fairness?: Fairness;
  /** What a perfect FIFO queue would give; only when every run had fewer keys than contenders. */
  readonly fifo?: FifoBound;
  readonly clamped: number;
  readonly operations: Readonly<Record<OpName, OperationResult>>;
  readonly timeline: readonly TimelinePoint[];
  readonly workers: readonly WorkerSummary[];
  readonly cpu: readonly CpuSummary[];
  /** One per run (absent in files written before windows were recorded). */
  readonly windows?: readonly MeasuredWindow[];
  /** The run's --threshold rules (and the default errors rule) judged over its whole window; absent in merges and older files. */
  readonly thresholds?: readonly ThresholdVerdict[];
  /** The rule that stopped the run (--abort-on-fail). */
  readonly abortedBy?: string;
  /** Per mix entry and per stage (one of each for a run from flags); absent in older files and merges of unlike runs. */
  readonly mix?: readonly PartResult[];
  readonly stages?: readonly PartResult[];
  /** --sweep: every step's rate and figures, and the knee; the rest of the result is the knee's step. */
  readonly sweep?: Sweep;
  /** What a reader must know about a merge (windows that only partly overlap). */
  readonly notes?: readonly string[];
}

/** One threshold's verdict over the run. */
export interface ThresholdVerdict {
  readonly rule: string;
  readonly ok: boolean;
  /** The measured value in the rule's unit (µs, cycles/s, a fraction, a count); null: nothing to judge. */
  readonly value: number | null;
  /** The default rule (errors must not exceed cycles), not one the user gave. */
  readonly implicit?: true;
  /** The first measured second (since the window began) whose running total failed it, when one did. */
  readonly failedSecond?: number;
}

export interface RunFacts {
  readonly host: HostLine;
  readonly interrupted: boolean;
  readonly measuredSeconds: number;
  readonly timeline: readonly TimelinePoint[];
  readonly cpu: Omit<CpuSummary, 'run'>;
  /** The measured window, wall-clock ms since the epoch. */
  readonly window?: { readonly from: number; readonly to: number };
}

export function buildResult(reports: readonly WorkerReport[], facts: RunFacts): RunResult {
  const errors: Record<string, number> = {};
  let cycles = 0;
  for (const report of reports) {
    cycles += report.cycles;
    addCounts(errors, report.errors);
  }
  const operations = mergeOperations(reports.map((r) => r.histograms));
  return {
    format: 'pipelock-loadtest',
    version: 1,
    runs: 1,
    interrupted: facts.interrupted,
    hosts: [facts.host],
    measuredSeconds: facts.measuredSeconds,
    cycles,
    throughput: facts.measuredSeconds > 0 ? cycles / facts.measuredSeconds : 0,
    ...openCounts(reports),
    errors,
    contendedAcquires: sum(reports, (r) => r.contendedAcquires),
    lostAttempts: sum(reports, (r) => r.lostAttempts),
    ...contention(reports.length > 0 && reports.every((r) => r.waits !== undefined) ? mergeWaits(reports.map((r) => r.waits!)) : undefined,
      reports.length > 0 && reports.every((r) => r.won !== undefined) ? fairnessOf(reports.flatMap((r) => r.won!)) : undefined,
      [facts.host], facts.measuredSeconds > 0 ? cycles / facts.measuredSeconds : 0, operations.acquire.p99),
    clamped: sum(reports, (r) => r.clamped),
    operations,
    timeline: markPartial(facts),
    workers: reports.map(({ histograms: _, errors: byCode, waits: _w, won: _c, late: _l, due: _d, lateStarts: _s, mix: _m, stages: _t,
      ...rest }) => ({ run: 0, ...rest, errors: countOf(byCode) })),
    cpu: [{ run: 0, ...facts.cpu }],
    ...(facts.window === undefined ? {}
      : { windows: [{ run: 0, from: new Date(facts.window.from).toISOString(), to: new Date(facts.window.to).toISOString() }] }),
  };
}

/**
 * Second s covers ((s − 1) s, s s] from the start. Seconds past the planned end (warm-up + duration)
 * are the stub a worker reports after its loop ends, and a stopped run's last second was cut short.
 * A second that ends by the end of the warm-up is warm-up, though its tick (due that very
 * millisecond) may have rung just after it.
 */
function markPartial(facts: RunFacts): TimelinePoint[] {
  const warmupMs = Number(facts.host.flags.warmupMs);
  const plannedMs = warmupMs + Number(facts.host.flags.durationMs);
  const last = Math.max(0, ...facts.timeline.map((p) => p.second));
  return facts.timeline.map((p) => ({
    ...p,
    warmup: p.warmup || p.second * 1000 <= warmupMs,
    partial: p.second * 1000 > plannedMs || (facts.interrupted && p.second === last),
  }));
}

/** Exact: histograms are added bucket by bucket, counts summed; runs are renumbered in order. */
export function mergeResults(results: readonly RunResult[], given: readonly string[] = []): RunResult {
  let notes = given;
  const errors: Record<string, number> = {};
  for (const result of results) addCounts(errors, result.errors);
  const timeline = new Map<number, { cycles: number; errors: number; warmup: boolean; partial: boolean }>();
  for (const result of results) {
    for (const point of result.timeline) {
      const at = timeline.get(point.second) ?? { cycles: 0, errors: 0, warmup: false, partial: false };
      timeline.set(point.second, { cycles: at.cycles + point.cycles, errors: at.errors + point.errors, warmup: at.warmup || point.warmup,
        partial: at.partial || point.partial === true });
    }
  }
  const throughput = sum(results, (r) => r.throughput);
  const hosts = results.flatMap((r) => r.hosts);
  // A figure only some runs recorded (older files, using(), open loops) would describe part of the load as all of it.
  const waits = results.every((r) => r.waits !== undefined) ? mergeWaits(results.map((r) => ({ ...r.waits!,
    firstAttempt: r.waits!.firstAttempt.histogram, retried: r.waits!.retried.histogram }))) : undefined;
  const fairness = results.every((r) => r.fairness !== undefined) ? mergeFairness(results.map((r) => r.fairness!)) : undefined;
  const dropped = [
    ...(waits === undefined && results.some((r) => r.waits !== undefined) ? ['attempts per acquisition'] : []),
    ...(fairness === undefined && results.some((r) => r.fairness !== undefined) ? ['fairness'] : []),
  ];
  if (dropped.length > 0) notes = [...notes,
    `${dropped.join(' and ')} left out of the merge: not every run recorded them (a file from an older pipelock, using(), an open loop)`];
  const operations = mergeOperations(results.map((r) => Object.fromEntries(OP_NAMES.map((op) => [op,
    r.operations[op].histogram])) as Record<OpName, string>));
  let offset = 0;
  const workers: WorkerSummary[] = [];
  const cpu: CpuSummary[] = [];
  const windows: MeasuredWindow[] = [];
  for (const result of results) {
    for (const worker of result.workers) workers.push({ ...worker, run: worker.run + offset });
    for (const entry of result.cpu) cpu.push({ ...entry, run: entry.run + offset });
    for (const window of result.windows ?? []) windows.push({ ...window, run: window.run + offset });
    offset += result.runs;
  }
  return {
    format: 'pipelock-loadtest',
    version: 1,
    runs: offset,
    interrupted: results.some((r) => r.interrupted),
    hosts,
    measuredSeconds: Math.max(0, ...results.map((r) => r.measuredSeconds)),
    cycles: sum(results, (r) => r.cycles),
    throughput,
    ...openCounts(results),
    errors,
    contendedAcquires: sum(results, (r) => r.contendedAcquires),
    lostAttempts: sum(results, (r) => r.lostAttempts),
    ...contention(waits, fairness, hosts, throughput, operations.acquire.p99),
    clamped: sum(results, (r) => r.clamped),
    operations,
    timeline: [...timeline].sort(([a], [b]) => a - b).map(([second, point]) => ({ second, ...point })),
    workers,
    cpu,
    ...(windows.length === offset ? { windows } : {}),
    ...(notes.length > 0
      || results.some((r) => r.notes !== undefined) ? { notes: [...results.flatMap((r) => r.notes ?? []), ...notes] } : {}),
  };
}

/** The optional contention fields, each present only when known. */
function contention(waits: WaitResult | undefined, fairness: Fairness | undefined, hosts: readonly HostLine[], throughput: number,
  acquireP99Us: number): Pick<RunResult, 'waits' | 'fairness' | 'fifo'> {
  const fifo = fifoBound(hosts, throughput, fairness, acquireP99Us);
  return { ...(waits === undefined ? {} : { waits }), ...(fairness === undefined ? {} : { fairness }),
    ...(fifo === undefined ? {} : { fifo }) };
}

export function mergeOperations(sets: readonly Readonly<Record<OpName, string>>[]): Record<OpName, OperationResult> {
  const operations = {} as Record<OpName, OperationResult>;
  for (const op of OP_NAMES) {
    const merged = mergeEncoded(sets.map((set) => set[op]));
    operations[op] = { ...summarize(merged), histogram: encode(merged) };
    merged.destroy();
  }
  return operations;
}
