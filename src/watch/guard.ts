import { revokedKey, revokedReasonFor, type KeyNames } from '../engine/keys.js';
import type { WatchListener } from './hub.js';
import type { MemberWatch } from './watch.js';

/** What the guard needs of a held lock (src/lifecycle/renewal.ts's Renewal fits). */
export interface Guarded {
  readonly lock: { readonly resources: readonly string[]; readonly value: string };
  /** False once released or lost: a read answered after that changes nothing. */
  readonly active: boolean;
}

/** Told once per lock: the masters where its keys read gone or another's, and a force-release's reason if read. */
export type LostHandler<T extends Guarded> = (held: T, lostOn: readonly number[], revoked: string | undefined) => void;

/**
 * The lost-lock signal (setting `watchHeld`): every master's watch tracks held keys and re-reads one at a change;
 * once more than N − quorum masters read it absent or another's, the lock's signal aborts. A notification is never
 * proof; what this does not do: docs/decisions/0012, "guard.ts".
 */
export class Guard<T extends Guarded> implements WatchListener {
  readonly #watches: readonly (MemberWatch | undefined)[];
  /** Masters that may be lost before the lock is: N − quorum. */
  readonly #spare: number;
  readonly #onLost: LostHandler<T>;
  /**
   * Per key, the lock watching it, or a Set while more than one does. One map for all masters, as each watches the
   * same keys (a Set per key per master cost ~1.2 KB per held lock).
   */
  readonly #byKey = new Map<string, T | Set<T>>();
  /** Per lock, the masters where it was read lost; undefined until the first. */
  readonly #lostOn = new Map<T, Set<number> | undefined>();
  /** Per lock, the reason read on a revoked-marker beside one of its gone keys. */
  readonly #revoked = new Map<T, string>();
  /** Per master, the keys to read at the end of this tick (one MGET each). */
  readonly #toRead: Set<string>[];
  /** A lock's resources as the masters name them (and the watches report them). */
  readonly #keys: KeyNames;

  constructor(watches: readonly (MemberWatch | undefined)[], quorum: number, keys: KeyNames, onLost: LostHandler<T>) {
    this.#watches = watches;
    this.#keys = keys;
    this.#spare = watches.length - quorum;
    this.#onLost = onLost;
    this.#toRead = watches.map(() => new Set<string>());
  }

  /** Starts watching `held`'s keys on every master that has a watch; the first read arms them. */
  add(held: T): void {
    if (this.#lostOn.has(held)) return;
    this.#lostOn.set(held, undefined);
    const byKey = this.#byKey;
    const keys = this.#keys.all(held.lock.resources);
    for (const key of keys) {
      const there = byKey.get(key);
      if (there === undefined) byKey.set(key, held);
      else if (there instanceof Set) there.add(held);
      else if (there !== held) byKey.set(key, new Set([there, held]));
    }
    for (let index = 0; index < this.#watches.length; index++) {
      if (this.#watches[index] !== undefined) this.#read(index, keys);
    }
  }

  /** Stops watching (release, loss, quit); synchronous, so nothing read later touches the lock. */
  remove(held: T): void {
    if (!this.#lostOn.delete(held)) return;
    this.#revoked.delete(held);
    const byKey = this.#byKey;
    for (const key of this.#keys.all(held.lock.resources)) {
      const there = byKey.get(key);
      if (there === held) {
        byKey.delete(key);
      } else if (there instanceof Set) {
        there.delete(held);
        if (there.size === 1) byKey.set(key, there.values().next().value!);
      }
    }
  }

  /** A watch told of a change to `key` (null: every key, a flush or a lost tracking table). */
  changed(index: number, key: string | null): void {
    if (this.#watches[index] === undefined) return;
    if (key === null) {
      this.ready(index);
      return;
    }
    if (this.#byKey.has(key)) this.#read(index, [key]);
  }

  /** A watch dropped: its master's reads are unknown until it is ready again (then read again). */
  lost(): void {
    // Nothing to do: a master whose watch is down is unknown, not lost (see above).
  }

  /** A watch (re)connected: nothing is tracked there; read every watched key again. */
  ready(index: number): void {
    if (this.#watches[index] !== undefined) this.#read(index, [...this.#byKey.keys()]);
  }

  /** Queues `keys` to be read on master `index` at the end of this tick. */
  #read(index: number, keys: readonly string[]): void {
    if (keys.length === 0) return;
    const toRead = this.#toRead[index]!;
    if (toRead.size === 0) setImmediate(() => { this.#flush(index); });
    for (const key of keys) toRead.add(key);
  }

  /** Reads the queued keys of master `index`; a key gone or another's loses that master for its locks. */
  #flush(index: number): void {
    const toRead = this.#toRead[index]!;
    const keys = [...toRead];
    toRead.clear();
    for (let i = 0; i < keys.length; i += kReadChunk) {
      const chunk = keys.slice(i, i + kReadChunk);
      // Judged: the locks holding each key when the read is sent, so after they were acquired. A
      // lock added later (the same key, taken again) is read by its own add(), never by this.
      const byKey = this.#byKey;
      // A Set is copied (it may change before the answer); a single lock is kept as it is.
      const judged = chunk.map((key): T | T[] | undefined => {
        const there = byKey.get(key);
        return there instanceof Set ? [...there] : there;
      });
      // Each key's revoked-marker is read in the same MGET: a force-release is told with its reason.
      void this.#watches[index]!.owners([...chunk, ...chunk.map(revokedKey)]).then((values) => {
        if (values === undefined) return;
        for (let k = 0; k < chunk.length; k++) {
          const marker = values[chunk.length + k];
          if (values[k] === null && typeof marker === 'string') this.#mark(judged[k], marker);
          // Unknown (a cluster member's shard that could not be read) is not lost.
          if (values[k] === undefined) continue;
          const owners = judged[k];
          if (owners === undefined) continue;
          if (!Array.isArray(owners)) {
            if (values[k] !== owners.lock.value) this.#lose(owners, index);
            continue;
          }
          for (const held of owners) if (values[k] !== held.lock.value) this.#lose(held, index);
        }
      });
    }
  }

  #mark(owners: T | T[] | undefined, marker: string): void {
    if (owners === undefined) return;
    for (const held of Array.isArray(owners) ? owners : [owners]) {
      const reason = revokedReasonFor(marker, held.lock.value);
      if (reason !== undefined && this.#lostOn.has(held)) this.#revoked.set(held, reason);
    }
  }

  #lose(held: T, index: number): void {
    if (!this.#lostOn.has(held) || !held.active) return;
    let lostOn = this.#lostOn.get(held);
    if (lostOn === undefined) this.#lostOn.set(held, (lostOn = new Set()));
    lostOn.add(index);
    if (lostOn.size > this.#spare) {
      const revoked = this.#revoked.get(held);
      this.remove(held);
      this.#onLost(held, [...lostOn].sort((a, b) => a - b), revoked);
    }
  }
}

/** Keys per MGET, so one read never holds a master for long (as chunkSize does for scripts). */
const kReadChunk = 1000;
