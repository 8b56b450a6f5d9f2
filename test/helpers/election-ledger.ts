/**
 * The election tests' own record of who led when, kept in a SharedArrayBuffer that every campaigner
 * thread writes with Atomics (and the test writes for a child process, from its messages), so the
 * tests judge leadership from what the campaigners saw and when, never from the library's state.
 * Times are process.hrtime (CLOCK_MONOTONIC), one clock across threads and processes, in ns.
 */

/** One leadership as its campaigner saw it. */
export interface Entry {
  /** The campaigner's number. */
  readonly who: number;
  readonly term: number;
  /** When campaign() resolved. */
  readonly began: bigint;
  /** The latest validity end the campaigner saw (began + term.validity, refreshed while leading). */
  readonly until: bigint;
  /** When its signal's abort event ran; undefined while it has not. */
  readonly aborted: bigint | undefined;
}

const kCount = 0;
const kHeader = 8;
const kFields = 6;
const [kState, kWho, kTerm, kBegan, kUntil, kAborted] = [0, 1, 2, 3, 4, 5] as const;
const kEntries = 256;

/** A new ledger's memory, to hand to each campaigner. */
export function ledgerMemory(): SharedArrayBuffer {
  return new SharedArrayBuffer((kHeader + kEntries * kFields) * BigInt64Array.BYTES_PER_ELEMENT);
}

/** Now on the shared monotonic clock, ns. */
export const now = (): bigint => process.hrtime.bigint();

/** Milliseconds from `a` to `b`. */
export const msBetween = (a: bigint, b: bigint): number => Number(b - a) / 1e6;

export class Ledger {
  readonly #cells: BigInt64Array;

  constructor(memory: SharedArrayBuffer) {
    this.#cells = new BigInt64Array(memory);
  }

  /** Records a term's beginning; returns its slot, for until() and aborted(). */
  begin(who: number, term: number, began: bigint, until: bigint): number {
    const slot = Number(Atomics.add(this.#cells, kCount, 1n));
    if (slot >= kEntries) throw new Error(`the ledger is full (${kEntries} terms)`);
    const at = kHeader + slot * kFields;
    Atomics.store(this.#cells, at + kWho, BigInt(who));
    Atomics.store(this.#cells, at + kTerm, BigInt(term));
    Atomics.store(this.#cells, at + kBegan, began);
    Atomics.store(this.#cells, at + kUntil, until);
    // Stored last: a reader sees the entry whole or not at all.
    Atomics.store(this.#cells, at + kState, 1n);
    return slot;
  }

  /** A later validity end (a renewal moved it); an earlier one is ignored. */
  until(slot: number, until: bigint): void {
    const at = kHeader + slot * kFields + kUntil;
    if (until > Atomics.load(this.#cells, at)) Atomics.store(this.#cells, at, until);
  }

  /** The term's signal aborted at `at` (the first call counts). */
  aborted(slot: number, at: bigint): void {
    void Atomics.compareExchange(this.#cells, kHeader + slot * kFields + kAborted, 0n, at);
  }

  /** Every whole entry, in the order their beginnings were recorded. */
  entries(): Entry[] {
    const count = Math.min(Number(Atomics.load(this.#cells, kCount)), kEntries);
    const out: Entry[] = [];
    for (let slot = 0; slot < count; slot++) {
      const at = kHeader + slot * kFields;
      if (Atomics.load(this.#cells, at + kState) !== 1n) continue;
      const aborted = Atomics.load(this.#cells, at + kAborted);
      out.push({
        who: Number(Atomics.load(this.#cells, at + kWho)),
        term: Number(Atomics.load(this.#cells, at + kTerm)),
        began: Atomics.load(this.#cells, at + kBegan),
        until: Atomics.load(this.#cells, at + kUntil),
        aborted: aborted === 0n ? undefined : aborted,
      });
    }
    return out;
  }
}

/**
 * The ledger's verdict: entries sorted by beginning, each term greater than the one before, and each
 * leadership over (its signal aborted) before the next began. Returns the problems found, [] if none.
 * A leadership still running is open-ended: nobody may begin after it.
 */
export function overlaps(entries: readonly Entry[]): string[] {
  const sorted = [...entries].sort((a, b) => (a.began < b.began ? -1 : a.began > b.began ? 1 : 0));
  const problems: string[] = [];
  for (let i = 1; i < sorted.length; i++) {
    const before = sorted[i - 1]!;
    const after = sorted[i]!;
    if (after.term <= before.term) problems.push(`term ${after.term} (campaigner ${after.who}) is not greater than the earlier ${before.term} (campaigner ${before.who})`);
    if (before.aborted === undefined || before.aborted > after.began) {
      const end = before.aborted === undefined ? 'still leading' : `aborted ${msBetween(after.began, before.aborted).toFixed(1)} ms after`;
      problems.push(`campaigner ${after.who} began term ${after.term} while campaigner ${before.who} led term ${before.term} (${end})`);
    }
  }
  return problems;
}
