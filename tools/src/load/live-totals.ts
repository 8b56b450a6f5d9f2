import { createHistogram, decode, type Histogram } from './histogram.js';
import type { FromWorker } from './protocol.js';
import type { Measured } from './thresholds.js';
import { OP_NAMES, type OpName } from './result.js';

/** What the live line shows, once a second, and what the thresholds are judged on while the run lasts. */
export interface LiveSample {
  readonly second: number;
  readonly warmup: boolean;
  readonly cycles: number;
  readonly errors: number;
  readonly totalErrors: number;
  /** This second's acquire latency, µs. */
  readonly p50: number;
  readonly p99: number;
  /** Open loop: this second's starts of cycles due in the window that were late. */
  readonly lateStarts: number;
  /** This second's failed cycles by error code. */
  readonly errorCodes: Readonly<Record<string, number>>;
  /** What the workers' objects use at this second's end, bytes (live only under --expose-gc: worker.ts memoryInUse). */
  readonly inUse: number;
  /** The measured seconds so far, every worker's (absent during warm-up). */
  readonly measured?: Measured;
}

type Tick = Extract<FromWorker, { type: 'tick' }>;

interface Second {
  reported: number;
  cycles: number;
  errors: number;
  starts: number;
  lateStarts: number;
  warmup: boolean;
  inUse: number;
  codes: Record<string, number>;
  histograms: Record<OpName, Histogram>;
}

function histograms(): Record<OpName, Histogram> {
  return { acquire: createHistogram(), extend: createHistogram(), release: createHistogram(), cycle: createHistogram() };
}

/**
 * Adds up the workers' ticks: a second is complete when every worker reported it; its counts
 * then go to the timeline and, past the warm-up, to the running totals. Ticks of one second
 * arrive together, within a few ms, so seconds are completed in order.
 */
export class LiveTotals {
  readonly #workers: number;
  readonly #seconds = new Map<number, Second>();
  readonly #timeline = new Map<number, { cycles: number; errors: number; warmup: boolean }>();
  readonly #totals = { cycles: 0, errors: 0, seconds: 0, due: 0, lateStarts: 0, histograms: histograms() };
  readonly #open: boolean;
  #totalErrors = 0;

  /** Sees each complete second's histograms before they are dropped (--otlp). */
  readonly #onHistograms: ((sample: LiveSample, histograms: Readonly<Record<OpName, Histogram>>) => void) | undefined;

  constructor(workers: number, open: boolean,
    onHistograms?: (sample: LiveSample, histograms: Readonly<Record<OpName, Histogram>>) => void) {
    this.#workers = workers;
    this.#open = open;
    this.#onHistograms = onHistograms;
  }

  /** Adds one worker's tick; returns the second's sample once every worker has reported it. */
  add(tick: Tick): LiveSample | undefined {
    this.#totalErrors += tick.errors;
    let second = this.#seconds.get(tick.second);
    if (second === undefined) {
      second = {
        reported: 0, cycles: 0, errors: 0, starts: 0, lateStarts: 0, warmup: false, inUse: 0, codes: {}, histograms: histograms(),
      };
      this.#seconds.set(tick.second, second);
    }
    second.reported++;
    second.cycles += tick.cycles;
    second.errors += tick.errors;
    second.starts += tick.starts;
    second.lateStarts += tick.lateStarts;
    second.warmup ||= tick.warmup;
    second.inUse += tick.inUse;
    for (const [code, n] of Object.entries(tick.errorCodes)) second.codes[code] = (second.codes[code] ?? 0) + n;
    for (const op of OP_NAMES) {
      const interval = decode(tick.histograms[op]);
      second.histograms[op].add(interval);
      interval.destroy();
    }
    this.#timeline.set(tick.second, { cycles: second.cycles, errors: second.errors, warmup: second.warmup });
    if (second.reported < this.#workers) return undefined;
    return this.#complete(tick.second, second);
  }

  #complete(at: number, second: Second): LiveSample {
    this.#seconds.delete(at);
    const acquire = second.histograms.acquire;
    const sample = {
      second: at, warmup: second.warmup, cycles: second.cycles, errors: second.errors, totalErrors: this.#totalErrors,
      p50: acquire.getValueAtPercentile(50), p99: acquire.getValueAtPercentile(99), lateStarts: second.lateStarts, errorCodes: second.codes,
      inUse: second.inUse,
    };
    this.#onHistograms?.(sample, second.histograms);
    if (!second.warmup) {
      const t = this.#totals;
      t.cycles += second.cycles;
      t.errors += second.errors;
      t.seconds++;
      t.due += second.starts;
      t.lateStarts += second.lateStarts;
      for (const op of OP_NAMES) t.histograms[op].add(second.histograms[op]);
    }
    for (const op of OP_NAMES) second.histograms[op].destroy();
    if (second.warmup) return sample;
    const { due, lateStarts, ...rest } = this.#totals;
    return { ...sample, measured: this.#open ? { ...rest, due, lateStarts } : rest };
  }

  /** Every second any worker reported, in order. */
  timeline(): { second: number; cycles: number; errors: number; warmup: boolean }[] {
    return [...this.#timeline].sort(([a], [b]) => a - b).map(([second, s]) => ({ second, ...s }));
  }

  destroy(): void {
    for (const second of this.#seconds.values()) for (const op of OP_NAMES) second.histograms[op].destroy();
    for (const op of OP_NAMES) this.#totals.histograms[op].destroy();
  }
}
