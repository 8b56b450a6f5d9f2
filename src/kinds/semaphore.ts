import type { Attempt } from '../attempt.js';
import { InvalidArgumentError } from '../errors.js';
import { MUTEX_OPS, type Lock, type RedlockAbortSignal } from '../lock.js';
import type { CallSettings } from '../options.js';
import { OP_PERMIT } from '../scripts.js';
import { holding } from './holding.js';
import { isCount, type Kind, type KindHost } from './kind.js';

/** Most permits a semaphore may have: its acquisition names every slot key in one script call. */
export const kMaxPermits = 1024;

/**
 * A counting semaphore over the Redlock's masters: at most `permits` holders of `resource` at once.
 *
 * Design, and why not one sorted set of holders per master. A sorted set per master (holder →
 * expiry, at most P live members) with a majority quorum does NOT bound the holders by P: the
 * counting argument only gives holders × Q ≤ N × P, i.e. up to ⌊N·P/Q⌋ holders. Three masters,
 * P = 2: holders A on {1, 2}, B on {2, 3}, C on {1, 3} — every master counts 2, yet 3 hold. Only a
 * quorum above N·P/(P + 1) restores the bound (all five masters for P ≥ 4 of 5), which gives up
 * every tolerance of a failed master. So each permit is a slot instead: P keys
 * `<resource>:permit:<i>`, each one a Redlock mutex (SET NX PX with the holder's token). A holder
 * holds one slot on a majority within validity. Two holders of the same slot have majorities that
 * share a master, where one SET NX would have failed while the other's key lived: the mutex's
 * argument, slot by slot. Distinct holders thus hold distinct slots, and there are P of them.
 *
 * What that guarantees is exactly what Redlock guarantees for a mutex, under the same assumptions:
 * masters keep acknowledged writes (fsync) or restart empty only after the largest TTL, their
 * clocks do not jump (a key's PX expiry is the server's clock: a master whose clock jumps forward
 * frees a slot early), a holder stops using its permit when `lock.validity` runs out (a GC pause
 * past it breaks this as it breaks a mutex; fencing is per mutex, not offered here). It also
 * assumes every client of the resource uses the same `permits`: a client with more uses slots the
 * others do not know of.
 *
 * The acquisition asks for one slot (at random first, which spreads contenders); a master answers
 * with the slot taken, or with a free slot it would have given (not taken), or 0 when all are held.
 * When a quorum offered the same other slot, the call tries that one at once instead of sleeping;
 * a refused caller sleeps on all P keys and wakes when any one is released (waiting, as a mutex's).
 * The permit is a plain lock on its slot key: extend, release (owner-checked), autoExtend renewal
 * in the scheduler's batches and `watchHeld` work as for a mutex.
 */
export class Semaphore {
  readonly resource: string;
  readonly permits: number;
  readonly #redlock: KindHost;
  readonly #slots: readonly string[];

  /** @internal From Redlock.semaphore(). */
  constructor(redlock: KindHost, resource: unknown, permits: unknown) {
    if (typeof resource !== 'string' || resource.length === 0) throw new InvalidArgumentError('resource', 'must be a non-empty string', resource);
    if (!isCount(permits) || permits > kMaxPermits) throw new InvalidArgumentError('permits', `must be an integer from 1 to ${kMaxPermits}`, permits);
    this.#redlock = redlock;
    this.resource = resource;
    this.permits = permits;
    this.#slots = Array.from({ length: permits }, (_, i) => permitKey(resource, i));
  }

  /** One permit for `duration` ms: a Lock on its slot (release, extend, autoExtend as for a mutex). */
  acquire(duration: number, settings?: CallSettings): Promise<Lock> {
    return this.#redlock.acquireKind(new PermitKind(this.resource, this.#slots), duration, settings);
  }

  /** Runs `routine` holding a permit, renewed while it runs (as Redlock.using); always releases. */
  using<T>(duration: number, settings: CallSettings, routine: (signal: RedlockAbortSignal) => Promise<T>): Promise<T>;
  using<T>(duration: number, routine: (signal: RedlockAbortSignal) => Promise<T>): Promise<T>;
  using<T>(duration: number, settingsOrRoutine: CallSettings | ((signal: RedlockAbortSignal) => Promise<T>), routine?: (signal: RedlockAbortSignal) => Promise<T>): Promise<T> {
    return holding(this.#redlock, duration, settingsOrRoutine, routine, (settings) => this.acquire(duration, settings));
  }
}

/** The key of permit slot `slot` of `resource`. */
export function permitKey(resource: string, slot: number): string {
  return `${resource}:permit:${slot}`;
}

/** One acquire() call of a permit: which slot its next attempt asks for. */
class PermitKind implements Kind {
  readonly name = 'semaphore';
  readonly opcode = OP_PERMIT;
  readonly ops = MUTEX_OPS;
  readonly anyKey = true;
  readonly resource: string;
  readonly keys: readonly string[];
  #slot: number;
  #held: readonly string[];
  /** The last attempt was itself a retry at once: the next refusal sleeps (no spinning on a hot semaphore). */
  #again = false;

  constructor(resource: string, keys: readonly string[]) {
    this.resource = resource;
    this.keys = keys;
    this.#slot = Math.floor(Math.random() * keys.length);
    this.#held = [keys[this.#slot]!];
  }

  get waitKeys(): readonly string[] {
    return this.keys;
  }

  get extra(): string {
    return String(this.#slot);
  }

  get target(): number {
    return this.#slot + 1;
  }

  get resources(): readonly string[] {
    return this.#held;
  }

  refused(attempt: Attempt): boolean {
    // The hints: per master that refused, the free slot it offered (+ 1); the most offered wins.
    const counts = attempt.counts;
    let best = -1;
    let votes = 0;
    if (counts !== undefined) {
      const tally = new Map<number, number>();
      for (let node = 0; node < counts.length; node++) {
        const reply = counts[node];
        if (reply === undefined) continue;
        const n = (tally.get(reply) ?? 0) + 1;
        tally.set(reply, n);
        if (n > votes) {
          votes = n;
          best = reply - 1;
        }
      }
    }
    this.#choose(best >= 0 ? best : Math.floor(Math.random() * this.keys.length));
    const now = !this.#again && votes >= attempt.quorum;
    this.#again = now;
    return now;
  }

  #choose(slot: number): void {
    this.#slot = slot;
    this.#held = [this.keys[slot]!];
  }
}
