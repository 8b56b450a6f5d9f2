import type { Attempt } from '../engine/attempt.js';
import { InvalidArgumentError } from '../errors.js';
import type { Lock, LockOps, RedlockAbortSignal } from '../lifecycle/lock.js';
import type { CallSettings } from '../lifecycle/lock.js';
import { OP_PERMIT, OP_PERMIT_EXTEND, OP_PERMIT_RELEASE } from '../protocol/opcodes.js';
import { usingLock } from '../lifecycle/using.js';
import { isCount, type Kind, type KindHost } from '../lifecycle/kind.js';

/**
 * A permit is its slot key plus the release counter, the one key a waiter watches (reading P slots on every master at
 * each sleep cost more than the wake-ups saved). The counter holds no token, so watchHeld does not watch permits.
 */
const PERMIT_OPS: LockOps = Object.freeze({ extend: OP_PERMIT_EXTEND, release: OP_PERMIT_RELEASE, watchable: false });

/** Most permits a semaphore may have: its acquisition names every slot key in one script call. */
export const kMaxPermits = 1024;

/**
 * A counting semaphore over the Redlock's masters: at most `permits` holders of `resource` at once. Each permit is a
 * slot key held as a Redlock mutex (`<resource>:permit:<i>`), so distinct holders hold distinct slots, under the
 * mutex's assumptions; every client must use the same `permits`. Why slots and not a sorted set per master, and how
 * a slot is chosen: docs/decisions/0012, "semaphore.ts".
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
    if (typeof resource !== 'string' || resource.length === 0)
      throw new InvalidArgumentError('resource', 'must be a non-empty string', resource);
    if (!isCount(permits) || permits > kMaxPermits)
      throw new InvalidArgumentError('permits', `must be an integer from 1 to ${kMaxPermits}`, permits);
    this.#redlock = redlock;
    this.resource = resource;
    this.permits = permits;
    this.#released = `${resource}:permits-released`;
    this.#keys = [...Array.from({ length: permits }, (_, i) => permitKey(resource, i)), this.#released];
  }

  /** One permit for `duration` ms: a Lock on its slot (release, extend, autoExtend as for a mutex). */
  acquire(duration: number, settings?: CallSettings): Promise<Lock> {
    return this.#redlock.acquireKind(new PermitKind(this.resource, this.#keys, this.#released,
      firstSlot(this.#redlock, this.resource, this.permits)), duration, settings);
  }

  /** Runs `routine` holding a permit, renewed while it runs (as Redlock.using); always releases. */
  using<T>(duration: number, settings: CallSettings, routine: (signal: RedlockAbortSignal) => Promise<T>): Promise<T>;
  using<T>(duration: number, routine: (signal: RedlockAbortSignal) => Promise<T>): Promise<T>;
  using<T>(duration: number, settingsOrRoutine: CallSettings | ((signal: RedlockAbortSignal) => Promise<T>),
    routine?: (signal: RedlockAbortSignal) => Promise<T>): Promise<T> {
    return usingLock(this.#redlock, duration, settingsOrRoutine, routine, (settings) => this.acquire(duration, settings));
  }
}

/** Per Redlock, per semaphore, the slot its next acquisition asks for first. */
const nextSlots = new WeakMap<KindHost, Map<string, number>>();

/** Callers of one process ask for consecutive slots from a random start (docs/decisions/0005-semaphore-waiting.md). */
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
