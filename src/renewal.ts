import { AGAINST, type Attempt } from './attempt.js';
import { publishLockLost } from './diagnostics.js';
import { ExtensionLimitError, LockLostError, type PipelockError } from './errors.js';
import { Alarm } from './alarm.js';
import { Heap } from './heap.js';
import type { Lock, RedlockAbortSignal } from './lock.js';
import type { Node } from './node.js';
import { describeOutcomes, outcomesOf } from './outcomes.js';
import { retryWait } from './retry.js';
import { validUntil } from './validity.js';

/** Called when an auto-extended lock is lost; must not throw (what it throws is reported as an 'error' event). */
export type LockLostHandler = (lock: Lock, error: PipelockError) => void;

/** One auto-extended lock in the scheduler. */
export interface Held {
  readonly lock: Lock;
  readonly duration: number;
  readonly ttlArg: string;
  readonly driftFactor: number;
  readonly nodeTimeout: number;
  readonly retryDelay: number;
  readonly retryJitter: number;
  /** Renew when less than this much validity remains. */
  readonly threshold: number;
  readonly maxRenewals: number;
  /** performance.now() after which the lock is no longer renewed (maxHoldTime). */
  readonly holdUntil: number;
  readonly controller: AbortController;
  readonly onLockLost: LockLostHandler | undefined;
  dueAt: number;
  /** False once released or lost: the heap drops inactive entries when they reach the top. */
  active: boolean;
  renewing: boolean;
  /** The bound was reached: at `dueAt` (the lock's expiry) the lock is reported lost, not renewed. */
  final: boolean;
}

export interface RenewalHost {
  readonly nodes: readonly Node[];
  readonly quorum: number;
  send(attempt: Attempt): void;
  makeAttempt(lock: Lock, ttlArg: string, budget: number): Attempt;
  /** Best-effort owner-checked delete of a lost lock's keys, so the resource frees before its TTL. */
  discard(lock: Lock): void;
  reportError(error: unknown): void;
}

/**
 * The renewal scheduler: one heap and one timer for every auto-extended lock of a Redlock. When the
 * timer fires, every lock due within the next `window` ms is renewed in one synchronous loop, so
 * the coalescer turns the whole batch into one owner-checked multi-key EVALSHA per master per
 * chunk. Each lock still counts its own quorum from its own slots of the replies.
 */
export class Renewals {
  readonly #heap = new Heap<Held>((held) => held.dueAt);
  readonly #host: RenewalHost;
  readonly #window: number;
  readonly #alarm = new Alarm(() => {
    this.#fire();
  });
  #active = 0;

  constructor(host: RenewalHost, window: number) {
    this.#host = host;
    this.#window = window;
  }

  /** Locks currently kept alive. */
  get size(): number {
    return this.#active;
  }

  add(held: Held): void {
    this.#active++;
    this.#schedule(held, performance.now());
  }

  /** Synchronous, before any I/O of a release: a renewal decided later can no longer touch the lock. */
  remove(held: Held): void {
    if (!held.active) return;
    held.active = false;
    this.#active--;
  }

  /** Stops everything (quit): each held lock's signal aborts with `reason`. */
  stop(reason: PipelockError): void {
    this.#alarm.cancel();
    for (const held of this.#heap.drain()) if (held.active) this.#lose(held, reason, false);
  }

  #schedule(held: Held, now: number): void {
    const lock = held.lock;
    if (lock.extensions >= held.maxRenewals || now + held.duration > held.holdUntil) {
      held.final = true;
      held.dueAt = lock.validUntil;
    } else {
      // A little jitter (up to 5% of the threshold) spreads locks taken together over a few
      // batches instead of one burst per period; the window below gathers them back up.
      held.dueAt = Math.max(now, lock.validUntil - held.threshold - Math.random() * 0.05 * held.threshold);
    }
    this.#heap.push(held);
    this.#alarm.before(held.dueAt);
  }

  #fire(): void {
    const now = performance.now();
    const until = now + this.#window;
    const heap = this.#heap;
    const host = this.#host;
    for (let held = heap.peek(); held !== undefined; held = heap.peek()) {
      if (held.active && held.dueAt > until) break;
      heap.pop();
      if (!held.active) continue;
      if (held.final || now >= held.lock.validUntil) {
        if (held.final) this.#lose(held, new ExtensionLimitError(held.maxRenewals));
        else this.#lose(held, new LockLostError(`${held.lock.resources.join(', ')}: validity ran out before a renewal succeeded`));
        continue;
      }
      held.renewing = true;
      const attempt = host.makeAttempt(held.lock, held.ttlArg, held.nodeTimeout);
      attempt.context = held;
      attempt.onDecided = this.#decided;
      host.send(attempt);
    }
    const next = heap.peek();
    if (next !== undefined) this.#alarm.before(next.dueAt);
  }

  readonly #decided = (attempt: Attempt): void => {
    const held = attempt.context as Held;
    held.renewing = false;
    if (!held.active) return; // released while the renewal was in flight
    const lock = held.lock;
    const now = performance.now();
    if (attempt.won && now < lock.validUntil) {
      lock.renewed(validUntil(attempt.start, held.duration, held.driftFactor), now);
      this.#schedule(held, now);
      return;
    }
    let against = 0;
    for (const vote of attempt.votes) if (vote === AGAINST) against++;
    if (against >= this.#host.quorum || now >= lock.validUntil) {
      const nodes = outcomesOf(attempt, this.#host.nodes);
      const why = against >= this.#host.quorum ? 'no longer held under its token on a quorum' : 'validity ran out before a renewal succeeded';
      this.#lose(held, new LockLostError(`${lock.resources.join(', ')}: ${why}: ${describeOutcomes(nodes)}`, [], nodes));
      return;
    }
    // Masters failed or timed out, but the lock may still be ours: try again soon, well before expiry.
    held.dueAt = Math.min(now + retryWait(held.retryDelay, held.retryJitter), now + (lock.validUntil - now) / 2);
    this.#heap.push(held);
    this.#alarm.before(held.dueAt);
  };

  #lose(held: Held, error: PipelockError, discard = true): void {
    this.remove(held);
    // A renewal may have succeeded on some masters after the local validity ran out: their keys
    // are still ours and would block the resource until their TTL.
    if (discard) this.#host.discard(held.lock);
    const signal: RedlockAbortSignal = held.controller.signal;
    signal.error = error;
    held.lock.lost();
    publishLockLost(held.lock.resources, error);
    held.controller.abort(error);
    if (held.onLockLost !== undefined) {
      try {
        held.onLockLost(held.lock, error);
      } catch (hookError) {
        this.#host.reportError(hookError);
      }
    }
  }
}

