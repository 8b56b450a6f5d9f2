/**
 * The memory the main thread and the renewal worker share: a validity cell per held lock and one heartbeat, read
 * without a message. Typed-array element accesses are tear-free, so a Float64 read sees one whole write.
 */
// performance.now() starts at each thread's own origin; hrtime is the process's one monotonic clock.

// performance.now() starts at each thread's own origin; hrtime is the process's one monotonic clock.
const kOffset = Number(process.hrtime.bigint()) / 1e6 - performance.now();

/** performance.now() of this thread, on the clock every thread of the process shares. */
export function toShared(local: number): number {
  return local + kOffset;
}

/** An instant of the shared clock as this thread's performance.now(). */
export function toLocal(shared: number): number {
  return shared - kOffset;
}

/** Now, on the shared clock. */
export function sharedNow(): number {
  return performance.now() + kOffset;
}

/** A cell's state: renewed by the worker (or not yet looked at). */
export const HELD = 1;
/** The worker lost it: not renewed on a quorum, or its validity ran out. */
export const LOST = 2;
/** The worker stopped renewing it: the main thread's loop did not turn within heartbeatBound. */
export const BLOCKED = 3;
/** A renewal was refused and the keys carry a force-release marker. */
export const REVOKED = 4;
/** maxExtensions or maxHoldTime was reached. */
export const LIMIT = 5;
/** Held, but its last renewal skipped for a stale heartbeat: running out in this state, it is lost to a blocked loop. */
export const SKIPPED = 6;
/** A renewal was refused on a quorum: the worker reads a force-release's reason; the main thread loses it at its next read. */
export const REFUSED = 7;
export type CellState = typeof HELD | typeof LOST | typeof BLOCKED | typeof REVOKED | typeof LIMIT | typeof SKIPPED | typeof REFUSED;

/** Cells per page: a page is one SharedArrayBuffer, sent once to the worker when first used. */
export const kPageSlots = 1024;
const kUntilBytes = kPageSlots * Float64Array.BYTES_PER_ELEMENT;

interface Page {
  readonly until: Float64Array;
  readonly state: Int32Array;
}

/** The validity cells, in pages; slot `n` is cell `n % kPageSlots` of page `n / kPageSlots`. */
export class Cells {
  readonly #pages: Page[] = [];

  /** Pages so far. */
  get pages(): number {
    return this.#pages.length;
  }

  /** A new page's memory (the main thread makes them; the worker adds the ones it is sent). */
  static page(): SharedArrayBuffer {
    return new SharedArrayBuffer(kUntilBytes + kPageSlots * Int32Array.BYTES_PER_ELEMENT);
  }

  add(buffer: SharedArrayBuffer): void {
    this.#pages.push({ until: new Float64Array(buffer, 0, kPageSlots), state: new Int32Array(buffer, kUntilBytes, kPageSlots) });
  }

  /** The instant (shared clock) at which the lock in `slot` stops being valid. */
  until(slot: number): number {
    return this.#pages[Math.trunc(slot / kPageSlots)]!.until[slot % kPageSlots]!;
  }

  setUntil(slot: number, shared: number): void {
    this.#pages[Math.trunc(slot / kPageSlots)]!.until[slot % kPageSlots] = shared;
  }

  state(slot: number): number {
    return Atomics.load(this.#pages[Math.trunc(slot / kPageSlots)]!.state, slot % kPageSlots);
  }

  setState(slot: number, state: CellState): void {
    Atomics.store(this.#pages[Math.trunc(slot / kPageSlots)]!.state, slot % kPageSlots, state);
  }
}

/** The main thread's heartbeat: the shared-clock instant its event loop last turned. */
export class Heartbeat {
  readonly #at: Float64Array;

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(Float64Array.BYTES_PER_ELEMENT)) {
    this.#at = new Float64Array(buffer);
  }

  beat(): void {
    this.#at[0] = sharedNow();
  }

  /** How long ago the last beat was, in ms. */
  get age(): number {
    return sharedNow() - this.#at[0]!;
  }
}
