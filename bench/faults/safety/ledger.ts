/**
 * The evidence of a safety run: one row per critical section entered by any worker thread, in a
 * SharedArrayBuffer that every worker writes and the checker reads after the run. Times are on
 * process.hrtime (CLOCK_MONOTONIC), the one clock every thread of the process shares; each
 * thread's performance.now() has its own origin and cannot be compared across threads.
 */

/** Row fields, Float64 each. */
const F_RESOURCE = 0;
const F_WORKER = 1;
const F_ENTRY = 2;
const F_EXIT = 3;
const F_VALID_END = 4;
const F_FENCE = 5;
const F_WRITE = 6;
const F_WRITE_AT = 7;
const F_STALLED_MS = 8;
const F_COMMIT = 9;
const F_LOST = 10;
const kFields = 11;

/** Header slots, Int32 each. */
const H_NEXT = 0;
const H_OVERFLOW = 1;
const H_STALL_MS = 2;
const H_ATTEMPTS = 3;
const kHeaderSlots = 4;
const kHeaderBytes = 8 * Math.ceil((kHeaderSlots * 4) / 8);

/** What the fenced write of a section got back from the log server. */
export const WRITE_ACCEPTED = 1;
export const WRITE_REJECTED = 0;
export const WRITE_FAILED = -1;
/** Not made (yet). */
export const WRITE_NONE = -2;

export type WriteResult = typeof WRITE_ACCEPTED | typeof WRITE_REJECTED | typeof WRITE_FAILED | typeof WRITE_NONE;

/** One critical section, as its holder recorded it (ms on the shared clock; 0: not reached). */
export interface LedgerRow {
  readonly row: number;
  readonly resource: number;
  readonly worker: number;
  readonly entry: number;
  readonly exit: number;
  /** entry + the lock's remaining validity at entry: the holder may act until then. */
  readonly validEnd: number;
  readonly fence: number;
  /** The fenced write made on entry, and when its answer came. */
  readonly write: WriteResult;
  readonly writeAt: number;
  /** The fenced write made just before the exit (the section's commit). */
  readonly commit: WriteResult;
  /** How long this holder's thread was blocked on purpose inside the section (a GC pause), ms. */
  readonly stalledMs: number;
  /** An election leader whose term's signal told it leadership was lost (not resigned): 1, else 0. */
  readonly lost: number;
}

/** ms on the clock all threads of this process share. */
export function sharedNow(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

export class Ledger {
  readonly buffer: SharedArrayBuffer;
  readonly capacity: number;
  readonly #header: Int32Array;
  readonly #rows: Float64Array;

  static create(capacity: number): Ledger {
    return new Ledger(new SharedArrayBuffer(kHeaderBytes + capacity * kFields * 8));
  }

  constructor(buffer: SharedArrayBuffer) {
    this.buffer = buffer;
    this.capacity = Math.floor((buffer.byteLength - kHeaderBytes) / (kFields * 8));
    this.#header = new Int32Array(buffer, 0, kHeaderSlots);
    this.#rows = new Float64Array(buffer, kHeaderBytes, this.capacity * kFields);
  }

  /** Records an entry now; the row to pass to the other calls, or −1 when the ledger is full (counted). */
  enter(resource: number, worker: number, validityMs: number, fence: number): number {
    const row = Atomics.add(this.#header, H_NEXT, 1);
    if (row >= this.capacity) {
      Atomics.add(this.#header, H_OVERFLOW, 1);
      return -1;
    }
    const now = sharedNow();
    const at = row * kFields;
    const r = this.#rows;
    r[at + F_RESOURCE] = resource;
    r[at + F_WORKER] = worker;
    r[at + F_ENTRY] = now;
    r[at + F_VALID_END] = now + validityMs;
    r[at + F_FENCE] = fence;
    r[at + F_WRITE] = WRITE_NONE;
    r[at + F_COMMIT] = WRITE_NONE;
    return row;
  }

  wrote(row: number, result: typeof WRITE_ACCEPTED | typeof WRITE_REJECTED | typeof WRITE_FAILED): void {
    if (row < 0) return;
    this.#rows[row * kFields + F_WRITE] = result;
    this.#rows[row * kFields + F_WRITE_AT] = sharedNow();
  }

  committed(row: number, result: typeof WRITE_ACCEPTED | typeof WRITE_REJECTED | typeof WRITE_FAILED): void {
    if (row >= 0) this.#rows[row * kFields + F_COMMIT] = result;
  }

  stalled(row: number, ms: number): void {
    if (row >= 0) this.#rows[row * kFields + F_STALLED_MS] = ms;
  }

  /**
   * Moves the validity end to now + `validityMs` if that is later (a renewed election lease). A
   * lease that ran out (0) moves nothing: the window must not stretch to whenever the leader looked.
   */
  extend(row: number, validityMs: number): void {
    if (row < 0 || validityMs <= 0) return;
    const at = row * kFields + F_VALID_END;
    this.#rows[at] = Math.max(this.#rows[at]!, sharedNow() + validityMs);
  }

  /** Marks an election leader told of its loss by its term's signal. */
  lost(row: number): void {
    if (row >= 0) this.#rows[row * kFields + F_LOST] = 1;
  }

  exit(row: number): void {
    if (row >= 0) this.#rows[row * kFields + F_EXIT] = sharedNow();
  }

  /** Asks the next holder of any thread to block its thread for `ms` inside its section. */
  requestStall(ms: number): void {
    Atomics.store(this.#header, H_STALL_MS, ms);
  }

  /** Whether a requested stall has not been taken by a holder yet. */
  get stallPending(): boolean {
    return Atomics.load(this.#header, H_STALL_MS) !== 0;
  }

  /** The pending stall, taken by exactly one holder; 0 when none is pending. */
  takeStall(): number {
    return Atomics.exchange(this.#header, H_STALL_MS, 0);
  }

  countAttempts(attempts: number): void {
    Atomics.add(this.#header, H_ATTEMPTS, attempts);
  }

  get attempts(): number {
    return Atomics.load(this.#header, H_ATTEMPTS);
  }

  /** Entries that did not fit. */
  get overflow(): number {
    return Atomics.load(this.#header, H_OVERFLOW);
  }

  /** Every recorded row; read after the workers have finished. */
  rows(): LedgerRow[] {
    const count = Math.min(Atomics.load(this.#header, H_NEXT), this.capacity);
    const r = this.#rows;
    const rows: LedgerRow[] = [];
    for (let row = 0; row < count; row++) {
      const at = row * kFields;
      rows.push({
        row,
        resource: r[at + F_RESOURCE]!,
        worker: r[at + F_WORKER]!,
        entry: r[at + F_ENTRY]!,
        exit: r[at + F_EXIT]!,
        validEnd: r[at + F_VALID_END]!,
        fence: r[at + F_FENCE]!,
        write: r[at + F_WRITE]! as WriteResult,
        writeAt: r[at + F_WRITE_AT]!,
        commit: r[at + F_COMMIT]! as WriteResult,
        stalledMs: r[at + F_STALLED_MS]!,
        lost: r[at + F_LOST]!,
      });
    }
    return rows;
  }
}
