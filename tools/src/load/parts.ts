import { encode, Recorder } from './histogram.js';
import type { Timings } from './cycle.js';
import { errorCode } from './meter.js';
import { OP_NAMES, type OpName, type PartReport } from './result.js';


class PartMeter {
  readonly recorders: Record<OpName, Recorder> =
    { acquire: new Recorder(), extend: new Recorder(), release: new Recorder(), cycle: new Recorder() };
  readonly errors: Record<string, number> = {};
  cycles = 0;

  done(timings: Timings, cycleMs: number): void {
    this.cycles++;
    const r = this.recorders;
    r.acquire.recordMs(timings.acquireMs);
    if (timings.extendMs >= 0) r.extend.recordMs(timings.extendMs);
    r.release.recordMs(timings.releaseMs);
    r.cycle.recordMs(cycleMs);
  }

  report(): PartReport {
    return { cycles: this.cycles, errors: { ...this.errors },
      histograms: Object.fromEntries(OP_NAMES.map((op) => [op, encode(this.recorders[op].histogram)])) as Record<OpName, string> };
  }
}

/**
 * The counted cycles of a scenario split by mix entry and by stage, besides the worker's Meter,
 * which keeps the totals. Kept only when there is more than one of either: a run of one entry and
 * one stage gets its parts from its totals, and pays nothing per cycle for them.
 */
export class Parts {
  readonly #entries: PartMeter[] | undefined;
  readonly #stages: PartMeter[] | undefined;

  constructor(entries: number, stages: number) {
    this.#entries = entries > 1 ? Array.from({ length: entries }, () => new PartMeter()) : undefined;
    this.#stages = stages > 1 ? Array.from({ length: stages }, () => new PartMeter()) : undefined;
  }

  get needed(): boolean {
    return this.#entries !== undefined || this.#stages !== undefined;
  }

  /** A counted, completed cycle of entry `entry`, started (or due) in stage `stage`. */
  done(entry: number, stage: number, timings: Timings, cycleMs: number): void {
    const e = this.#entries?.[entry];
    if (e !== undefined) e.done(timings, cycleMs);
    const s = this.#stages?.[Math.max(0, stage)];
    if (s !== undefined) s.done(timings, cycleMs);
  }

  failed(entry: number, stage: number, error: unknown): void {
    const code = errorCode(error);
    const e = this.#entries?.[entry];
    if (e !== undefined) e.errors[code] = (e.errors[code] ?? 0) + 1;
    const s = this.#stages?.[Math.max(0, stage)];
    if (s !== undefined) s.errors[code] = (s.errors[code] ?? 0) + 1;
  }

  report(): { mix?: PartReport[]; stages?: PartReport[] } {
    return {
      ...(this.#entries === undefined ? {} : { mix: this.#entries.map((p) => p.report()) }),
      ...(this.#stages === undefined ? {} : { stages: this.#stages.map((p) => p.report()) }),
    };
  }
}
