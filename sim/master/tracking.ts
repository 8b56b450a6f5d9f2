/**
 * Client-side caching in Redis 7.0's default mode (CLIENT TRACKING on, RESP3), per key: which
 * connections read it since its last change (redis/src/tracking.c's TrackingTable).
 *
 * A read by a tracking connection remembers the key for it — even a read that failed with
 * WRONGTYPE, and the reads a script makes for its caller. The key's next change by anyone
 * (a write, a DEL, its expiry) pushes one invalidation to each connection that remembered it and
 * forgets them all. A connection's own change reaches it after the reply of the command that made
 * it (Redis defers those until the command is done). A flush pushes a null invalidation to every
 * tracking connection. Entries of a connection that turned tracking off stay, as in Redis, and
 * are pushed if it turns tracking on again before the key changes.
 */

/** A push to a connection: one key changed, or (null) every key (a flush). */
export type Push = readonly ['invalidate', readonly [string] | null];

/** The master's side of one connection. */
export interface Session {
  readonly id: number;
  readonly resp: 2 | 3;
  open: boolean;
  tracking: boolean;
  /** Invalidations of this connection's own command, delivered after its reply. */
  readonly pending: (string | null)[];
  /** Delivers a push now. */
  push(push: Push): void;
}

export class Tracking {
  readonly #table = new Map<string, Set<Session>>();

  remember(session: Session, key: string): void {
    let readers = this.#table.get(key);
    if (readers === undefined) {
      readers = new Set();
      this.#table.set(key, readers);
    }
    readers.add(session);
  }

  /** `key` changed during a command of `current` (undefined: outside any command). */
  invalidate(key: string, current: Session | undefined): void {
    const readers = this.#table.get(key);
    if (readers === undefined) return;
    this.#table.delete(key);
    // Redis walks the key's client ids in order: the order in which connections hear of a change.
    const ordered = readers.size === 1 ? readers : [...readers].sort((a, b) => a.id - b.id);
    for (const session of ordered) {
      // RESP2 without REDIRECT can receive no push (tracking.c's sendTrackingMessage).
      if (!session.open || !session.tracking || session.resp !== 3) continue;
      if (session === current) session.pending.push(key);
      else session.push(['invalidate', [key]]);
    }
  }

  /** FLUSHALL: a null invalidation to every tracking connection, and nothing remembered any more. */
  flush(sessions: Iterable<Session>, current: Session | undefined): void {
    for (const session of sessions) {
      if (!session.open || !session.tracking || session.resp !== 3) continue;
      if (session === current) session.pending.push(null);
      else session.push(['invalidate', null]);
    }
    this.#table.clear();
  }

  clear(): void {
    this.#table.clear();
  }

  /** How many keys are remembered for someone (for tests). */
  get size(): number {
    return this.#table.size;
  }
}
