import { encode, Recorder } from './histogram.js';
import { bucketOf, emptyAttempts } from './contention.js';
import type { Timings } from './cycle.js';
import { OP_NAMES, type OpName, type WorkerReport } from './result.js';

const kResourceLocked = 'ERR_PIPELOCK_RESOURCE_LOCKED';

/** One cycle's operations into `recorders` (the window's, or the live second's). */
function record(recorders: Record<OpName, Recorder>, timings: Timings, cycleMs: number): void {
  recorders.acquire.recordMs(timings.acquireMs);
  if (timings.extendMs >= 0) recorders.extend.recordMs(timings.extendMs);
  recorders.release.recordMs(timings.releaseMs);
  recorders.cycle.recordMs(cycleMs);
}

/** What a worker can tell about its acquisitions. */
export interface MeterShape {
  /** Closed-loop slots, each one contender whose acquisitions are counted; 0: none (open loop, renew-hold). */
  readonly contenders: number;
  /** Whether a cycle's attempts are known (not under using(), which hides its Lock). */
  readonly attempts: boolean;
  /** An open loop: it counts the cycles due in the window that did not complete inside it. */
  readonly open?: boolean;
}

/** A worker's tallies: the measured window's histograms and counts, and the current second's for the live line. */
export class Meter {
  readonly #recorders: Record<OpName, Recorder> =
    { acquire: new Recorder(), extend: new Recorder(), release: new Recorder(), cycle: new Recorder() };
  /** Acquire latency split by attempts; undefined when attempts are not known. */
  readonly #waits: { firstAttempt: Recorder; retried: Recorder; attempts: ReturnType<typeof emptyAttempts> } | undefined;
  readonly #won: number[] | undefined;
  readonly #errors: Record<string, number> = {};
  #cycles = 0;
  #late: number | undefined;
  #contended = 0;
  #lostAttempts = 0;
  /** Open loop: starts due in the window, those started late, and (at the end) how many were due. */
  #starts = 0;
  #lateStarts = 0;
  #due = 0;
  #interval = intervalRecorders();
  #intervalCycles = 0;
  #intervalErrors = 0;
  #intervalStarts = 0;
  #intervalLate = 0;
  #intervalCodes: Record<string, number> = {};

  constructor(shape: MeterShape) {
    this.#waits = shape.attempts ? { firstAttempt: new Recorder(), retried: new Recorder(), attempts: emptyAttempts() } : undefined;
    this.#won = shape.contenders > 0 ? new Array<number>(shape.contenders).fill(0) : undefined;
    if (shape.open === true) this.#late = 0;
  }

  /** A completed cycle; `counted` when it lies inside the measured window; `contender`: the slot that ran it (closed loop). */
  done(timings: Timings, cycleMs: number, counted: boolean, contender = -1): void {
    this.#intervalCycles++;
    record(this.#interval, timings, cycleMs);
    if (!counted) return;
    this.#cycles++;
    record(this.#recorders, timings, cycleMs);
    if (timings.attempts > 1) {
      this.#contended++;
      this.#lostAttempts += timings.attempts - 1;
    }
    if (this.#won !== undefined && contender >= 0) this.#won[contender]!++;
    const waits = this.#waits;
    if (waits !== undefined) {
      // More than one attempt: it lost to a holder, then retried on its schedule or was woken by a release.
      (timings.attempts > 1 ? waits.retried : waits.firstAttempt).recordMs(timings.acquireMs);
      waits.attempts.buckets[bucketOf(timings.attempts)]!++;
      waits.attempts.total += timings.attempts;
      waits.attempts.max = Math.max(waits.attempts.max, timings.attempts);
    }
  }

  failed(error: unknown, counted: boolean): void {
    this.#intervalErrors++;
    const code = errorCode(error);
    this.#intervalCodes[code] = (this.#intervalCodes[code] ?? 0) + 1;
    if (!counted) return;
    this.#errors[code] = (this.#errors[code] ?? 0) + 1;
    if (code === kResourceLocked) {
      this.#contended++;
      this.#lostAttempts += attemptsOf(error);
    }
  }

  /** Open loop: `n` cycles due inside the window did not complete inside it (never started, or ended after it). */
  late(n: number): void {
    if (this.#late !== undefined) this.#late += n;
  }

  /** Open loop: a cycle due inside the window started; `late` when the generator started it behind its schedule. */
  started(late: boolean): void {
    this.#starts++;
    this.#intervalStarts++;
    if (!late) return;
    this.#lateStarts++;
    this.#intervalLate++;
  }

  /** Open loop, at its end: how many cycles were due inside the window (those never started are late too). */
  scheduled(due: number): void {
    this.#due = due;
  }

  /** An error outside any cycle's accounting (an open loop skipping a tick it had no room for). */
  count(code: string): void {
    this.#intervalErrors++;
    this.#intervalCodes[code] = (this.#intervalCodes[code] ?? 0) + 1;
    this.#errors[code] = (this.#errors[code] ?? 0) + 1;
  }

  /** The current second's counts and histograms, then starts the next second. */
  takeInterval(): Interval {
    const histograms = {} as Record<OpName, string>;
    for (const op of OP_NAMES) {
      histograms[op] = encode(this.#interval[op].histogram);
      this.#interval[op].histogram.reset();
    }
    const taken = { cycles: this.#intervalCycles, errors: this.#intervalErrors, errorCodes: this.#intervalCodes,
      starts: this.#intervalStarts, lateStarts: this.#intervalLate, histograms };
    this.#intervalCodes = {};
    this.#intervalCycles = 0;
    this.#intervalErrors = 0;
    this.#intervalStarts = 0;
    this.#intervalLate = 0;
    return taken;
  }

  report(worker: number, extra: Pick<WorkerReport, 'cpuUserMs' | 'cpuSystemMs' | 'elu' | 'measuredMs'>): WorkerReport {
    let clamped = 0;
    for (const op of OP_NAMES) clamped += this.#recorders[op].clamped;
    const waits = this.#waits;
    return {
      worker,
      cycles: this.#cycles,
      errors: { ...this.#errors },
      contendedAcquires: this.#contended,
      lostAttempts: this.#lostAttempts,
      clamped,
      histograms: Object.fromEntries(OP_NAMES.map((op) => [op, encode(this.#recorders[op].histogram)])) as Record<OpName, string>,
      ...(waits === undefined ? {} : { waits: { firstAttempt: encode(waits.firstAttempt.histogram),
        retried: encode(waits.retried.histogram), attempts: { ...waits.attempts, buckets: [...waits.attempts.buckets] } } }),
      ...(this.#won === undefined ? {} : { won: [...this.#won] }),
      ...(this.#late === undefined ? {}
        : { late: this.#late, due: this.#due, lateStarts: this.#lateStarts + Math.max(0, this.#due - this.#starts) }),
      ...extra,
    };
  }
}

/** One second of a worker, for the live line and the thresholds judged while the run lasts. */
export interface Interval {
  readonly cycles: number;
  readonly errors: number;
  /** Open loop: starts of cycles due in the window, and those late; 0 otherwise. */
  readonly starts: number;
  readonly lateStarts: number;
  readonly errorCodes: Readonly<Record<string, number>>;
  /** Encoded, µs, of every cycle that completed in the second (warm-up included). */
  readonly histograms: Readonly<Record<OpName, string>>;
}

function intervalRecorders(): Record<OpName, Recorder> {
  return { acquire: new Recorder(), extend: new Recorder(), release: new Recorder(), cycle: new Recorder() };
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
