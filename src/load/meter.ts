import { encode, Recorder } from './histogram.js';
import type { Timings } from './cycle.js';
import { OP_NAMES, type OpName, type WorkerReport } from './result.js';

const kResourceLocked = 'ERR_PIPELOCK_RESOURCE_LOCKED';

/** A worker's tallies: the measured window's histograms and counts, and the current second's for the live line. */
export class Meter {
  readonly #recorders: Record<OpName, Recorder> = { acquire: new Recorder(), extend: new Recorder(), release: new Recorder(), cycle: new Recorder() };
  readonly #errors: Record<string, number> = {};
  #cycles = 0;
  #contended = 0;
  #lostAttempts = 0;
  #interval = new Recorder();
  #intervalCycles = 0;
  #intervalErrors = 0;

  /** A completed cycle; `counted` when it lies inside the measured window. */
  done(timings: Timings, cycleMs: number, counted: boolean): void {
    this.#intervalCycles++;
    this.#interval.recordMs(timings.acquireMs);
    if (!counted) return;
    this.#cycles++;
    const r = this.#recorders;
    r.acquire.recordMs(timings.acquireMs);
    if (timings.extendMs >= 0) r.extend.recordMs(timings.extendMs);
    r.release.recordMs(timings.releaseMs);
    r.cycle.recordMs(cycleMs);
    if (timings.attempts > 1) {
      this.#contended++;
      this.#lostAttempts += timings.attempts - 1;
    }
  }

  failed(error: unknown, counted: boolean): void {
    this.#intervalErrors++;
    if (!counted) return;
    const code = errorCode(error);
    this.#errors[code] = (this.#errors[code] ?? 0) + 1;
    if (code === kResourceLocked) {
      this.#contended++;
      this.#lostAttempts += attemptsOf(error);
    }
  }

  /** An error outside any cycle's accounting (an open loop skipping a tick it had no room for). */
  count(code: string): void {
    this.#intervalErrors++;
    this.#errors[code] = (this.#errors[code] ?? 0) + 1;
  }

  /** The current second's counts and acquire histogram, then starts the next second. */
  takeInterval(): { cycles: number; errors: number; acquire: string } {
    const taken = { cycles: this.#intervalCycles, errors: this.#intervalErrors, acquire: encode(this.#interval.histogram) };
    this.#interval.histogram.reset();
    this.#intervalCycles = 0;
    this.#intervalErrors = 0;
    return taken;
  }

  report(worker: number, extra: Pick<WorkerReport, 'cpuUserMs' | 'cpuSystemMs' | 'elu' | 'measuredMs'>): WorkerReport {
    let clamped = 0;
    for (const op of OP_NAMES) clamped += this.#recorders[op].clamped;
    return {
      worker,
      cycles: this.#cycles,
      errors: { ...this.#errors },
      contendedAcquires: this.#contended,
      lostAttempts: this.#lostAttempts,
      clamped,
      histograms: Object.fromEntries(OP_NAMES.map((op) => [op, encode(this.#recorders[op].histogram)])) as Record<OpName, string>,
      ...extra,
    };
  }
}

/** pipelock's stable `code`, else the error's name: plain strings that cross threads and files. */
export function errorCode(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    const name = (error as { name?: unknown }).name;
    if (typeof name === 'string' && name !== '') return name;
  }
  return 'non-error thrown';
}

/** The attempts a failed acquisition made (1 when the error does not say). */
export function attemptsOf(error: unknown): number {
  const attempts = (error as { attempts?: unknown }).attempts;
  return Array.isArray(attempts) ? attempts.length : 1;
}
