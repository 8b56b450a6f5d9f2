/**
 * One database's keys, each with its value and its expiry (absolute ms on the master's clock).
 *
 * Expiry is lazy, as a client sees Redis's: a key past its time is deleted when a command touches
 * it (Redis's expireIfNeeded), which counts as a change (tracking pushes it), and is left out of
 * every listing meanwhile. Redis's own background expiry is `expireAll`, for the simulation to call.
 */

/** No expiry. */
export const NEVER = Infinity;

export interface StringEntry {
  readonly type: 'string';
  value: string;
  expireAt: number;
}

/** Members and their scores; kept unordered, sorted when read (the sets pipelock keeps are small). */
export interface ZSetEntry {
  readonly type: 'zset';
  readonly scores: Map<string, number>;
  expireAt: number;
}

export interface HashEntry {
  readonly type: 'hash';
  readonly fields: Map<string, string>;
  expireAt: number;
}

/** A list (an election's history, or a foreign key planted) or a set (only planted, never read by a simulated command). */
export interface OpaqueEntry {
  readonly type: 'list' | 'set';
  readonly items: readonly string[];
  expireAt: number;
}

export type Entry = StringEntry | ZSetEntry | HashEntry | OpaqueEntry;

export class Keyspace {
  readonly #entries = new Map<string, Entry>();

  /** `expired(key)`: a key was found past its time and deleted (Redis signals it as modified). */
  constructor(readonly expired: (key: string) => void) {}

  /** The key's entry, deleting it first when it is past its time at `nowMs`. */
  lookup(key: string, nowMs: number): Entry | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    // Redis's keyIsExpired: gone once now > when, so a key is still there at its last ms.
    if (nowMs > entry.expireAt) {
      this.#entries.delete(key);
      this.expired(key);
      return undefined;
    }
    return entry;
  }

  /** Adds or replaces the key's entry (no signal: the command signals). */
  put(key: string, entry: Entry): void {
    this.#entries.set(key, entry);
  }

  /** Deletes the key; whether it was there (callers look it up first, so expiry is already done). */
  delete(key: string): boolean {
    return this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }

  /** Deletes every key past its time, each signalled as Redis's active expiry would; how many. */
  expireAll(nowMs: number): number {
    let count = 0;
    for (const [key, entry] of this.#entries) {
      if (nowMs > entry.expireAt) {
        this.#entries.delete(key);
        this.expired(key);
        count++;
      }
    }
    return count;
  }

  /** The live keys at `nowMs` and their entries, touching nothing (for inspection). */
  *live(nowMs: number): IterableIterator<[string, Entry]> {
    for (const pair of this.#entries) if (nowMs <= pair[1].expireAt) yield pair;
  }
}
