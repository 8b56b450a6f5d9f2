import type { Attempt } from '../engine/attempt.js';
import { InvalidArgumentError } from '../errors.js';
import type { Lock, LockOps, RedlockAbortSignal } from '../lifecycle/lock.js';
import type { CallSettings } from '../lifecycle/lock.js';
import { OP_PERMIT, OP_PERMIT_EXTEND, OP_PERMIT_RELEASE } from '../protocol/opcodes.js';
import { usingLock } from '../lifecycle/using.js';
import { isCount, type Kind, type KindHost } from '../lifecycle/kind.js';

/**
 * A permit is its slot key plus the semaphore's release counter: extended owner-checked on the slot
 * alone; a release deletes the slot and bumps the counter, the one key a waiter watches (rather than
 * P slot keys: reading eight keys on five masters at every sleep cost more than the wake-ups saved).
 * The counter holds no token, so the lost-lock guard (watchHeld) does not watch permits.
 */
const PERMIT_OPS: LockOps = Object.freeze({ extend: OP_PERMIT_EXTEND, release: OP_PERMIT_RELEASE, watchable: false });

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
 * a refused caller sleeps on the semaphore's release counter and wakes when a permit is released
 * (waiting, as a mutex's; callers of one process wait side by side, not queued behind each other,
 * and one of them wakes per change). Extend and release are owner-checked on the slot key; autoExtend
 * renews permits in the scheduler's batches with the mutexes. `lock.resources` is the slot key and
 * the counter's.
 */
export class Semaphore {
  /** The semaphore's name: its keys are `<name>:permit:<i>` and `<name>:permits-released`. */
  readonly resource: string;
  /** How many holders at once; every client of this semaphore must use the same number. */
  readonly permits: number;
  readonly #redlock: KindHost;
  /** The slot keys, then the release counter: the acquisition's keys. */
  readonly #keys: readonly string[];
  readonly #released: string;

  /** @internal From Redlock.semaphore(). */
  constructor(redlock: KindHost, resource: unknown, permits: unknown) {
    if (typeof resource !== 'string' || resource.length === 0) throw new InvalidArgumentError('resource', 'must be a non-empty string', resource);
    if (!isCount(permits) || permits > kMaxPermits) throw new InvalidArgumentError('permits', `must be an integer from 1 to ${kMaxPermits}`, permits);
    this.#redlock = redlock;
    this.resource = resource;
    this.permits = permits;
    this.#released = `${resource}:permits-released`;
    this.#keys = [...Array.from({ length: permits }, (_, i) => permitKey(resource, i)), this.#released];
  }

  /** One permit for `duration` ms: a Lock on its slot (release, extend, autoExtend as for a mutex). */
  acquire(duration: number, settings?: CallSettings): Promise<Lock> {
    return this.#redlock.acquireKind(new PermitKind(this.resource, this.#keys, this.#released, firstSlot(this.#redlock, this.resource, this.permits)), duration, settings);
  }

  /** Runs `routine` holding a permit, renewed while it runs (as Redlock.using); always releases. */
  using<T>(duration: number, settings: CallSettings, routine: (signal: RedlockAbortSignal) => Promise<T>): Promise<T>;
  using<T>(duration: number, routine: (signal: RedlockAbortSignal) => Promise<T>): Promise<T>;
  using<T>(duration: number, settingsOrRoutine: CallSettings | ((signal: RedlockAbortSignal) => Promise<T>), routine?: (signal: RedlockAbortSignal) => Promise<T>): Promise<T> {
    return usingLock(this.#redlock, duration, settingsOrRoutine, routine, (settings) => this.acquire(duration, settings));
  }
}

/** Per Redlock, per semaphore, the slot its next acquisition asks for first. */
const nextSlots = new WeakMap<KindHost, Map<string, number>>();

/**
 * Callers of one process ask for consecutive slots, starting at a random one per process: picked at
 * random, its own callers asked for the same slot often (docs/decisions/0005-semaphore-waiting.md).
 */
function firstSlot(host: KindHost, resource: string, permits: number): number {
  let slots = nextSlots.get(host);
  if (slots === undefined) nextSlots.set(host, slots = new Map<string, number>());
  const next = slots.get(resource) ?? Math.floor(Math.random() * permits);
  slots.set(resource, (next + 1) % permits);
  // Thousands of semaphores (one name per job) must not pile up here.
  if (slots.size > 10_000) slots.clear();
  return next;
}

/** The key of permit slot `slot` of `resource`. */
export function permitKey(resource: string, slot: number): string {
  return `${resource}:permit:${slot}`;
}

/** One acquire() call of a permit: which slot its next attempt asks for. */
class PermitKind implements Kind {
  readonly name = 'semaphore';
  readonly opcode = OP_PERMIT;
  readonly ops = PERMIT_OPS;
  readonly waiting = 'one';
  readonly resource: string;
  readonly keys: readonly string[];
  readonly waitKeys: readonly string[];
  readonly #released: string;
  #slot: number;
  #held: readonly string[];
  /** The last attempt was itself a retry at once: the next refusal sleeps (no spinning on a hot semaphore). */
  #again = false;

  constructor(resource: string, keys: readonly string[], released: string, slot: number) {
    this.resource = resource;
    this.keys = keys;
    this.#released = released;
    this.waitKeys = [released];
    this.#slot = slot;
    this.#held = [keys[slot]!, released];
  }

  get extra(): string {
    return String(this.#slot);
  }

  get target(): number {
    return this.#slot + 1;
  }

  get lockKeys(): readonly string[] {
    return this.#held;
  }

  get foreign(): boolean {
    return false;
  }

  /** Permits are never handed over (their waiters wait side by side), nor fenced. */
  terms(): undefined {
    return undefined;
  }

  fence(): undefined {
    return undefined;
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
    this.#choose(best >= 0 ? best : Math.floor(Math.random() * (this.keys.length - 1)));
    const now = !this.#again && votes >= attempt.quorum;
    this.#again = now;
    return now;
  }

  #choose(slot: number): void {
    this.#slot = slot;
    this.#held = [this.keys[slot]!, this.#released];
  }
}
