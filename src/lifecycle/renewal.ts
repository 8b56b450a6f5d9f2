import type { Attempt } from '../engine/attempt.js';
import { publishLockLost } from '../engine/channels.js';
import { ExtensionLimitError, LockLostError, type PipelockError } from '../errors.js';
import { Alarm } from '../util/alarm.js';
import { Heap } from '../util/heap.js';
import { readClockFirst } from '../util/fresh-signal.js';
import { kLost, kOps, kRenewal, kRenewed, type Lock, type LockLostHandler, type RedlockAbortSignal, type Renewing } from './lock.js';
import type { MasterSet } from '../engine/masters.js';
import { describeOutcomes } from '../engine/records.js';
import { retryWait } from '../waiting/schedule.js';
import { misconfigured } from './misconfigured.js';
import { validUntil } from './validity.js';
import { EXTENDED, extensionOf, NO_LONGER_HELD, UNCONFIRMED } from './extend.js';
import { publishRenewal } from './channels.js';
import { Guard } from '../watch/guard.js';
import type { WatchHub } from '../watch/hub.js';

/** The settings a held lock is renewed with (a ResolvedSettings fits). */
export interface HoldSettings {
  readonly driftFactor: number;
  readonly nodeTimeout: number;
  readonly retryDelay: number;
  readonly retryJitter: number;
  readonly automaticExtensionThreshold: number;
  readonly maxExtensions: number;
  readonly maxHoldTime: number;
  /** Watch the keys for a loss between renewals (src/watch/guard.ts). */
  readonly watchHeld: boolean;
}

/**
 * One auto-extended lock in the scheduler. A class rather than a literal with a `stop` closure, and
 * holding the (shared) settings rather than copies of them: every field copied or closure made is
 * paid once per held lock, and fractional numbers stored per object are boxed
 * (docs/decisions/0002-acquire-memory.md).
 */
export class Renewal implements Renewing {
  readonly ttlArg: string;
  /** performance.now() after which the lock is no longer renewed (maxHoldTime). */
  readonly holdUntil: number;
  /** Made when the signal is first read (using() reads it; an acquire() caller may never) or the lock is lost. */
  #controller: AbortController | undefined = undefined;
  dueAt = 0;
  /** False once released or lost. */
  active = true;
  /** Its index in the scheduler's heap; −1 while out of it (being renewed, released). */
  slot = -1;
  /** The bound was reached: at `dueAt` (the lock's expiry) the lock is reported lost, not renewed. */
  final = false;
  /** A renewal is out: `dueAt` is the lock's expiry, when it is lost unless that renewal answered first. */
  renewing = false;

  constructor(
    readonly renewals: Renewals,
    readonly lock: Lock,
    readonly duration: number,
    readonly settings: HoldSettings,
    readonly onLockLost: LockLostHandler | undefined,
    now: number,
  ) {
    this.ttlArg = String(duration);
    this.holdUntil = now + settings.maxHoldTime;
  }

  /**
   * Renew when less than this much validity remains: a third of the duration (Redisson's watchdog
   * period), never later than automaticExtensionThreshold before expiry, never earlier than halfway.
   */
  get threshold(): number {
    const d = this.duration;
    return Math.min(Math.max(d / 3, this.settings.automaticExtensionThreshold), d / 2);
  }

  get signal(): RedlockAbortSignal {
    if (this.#controller !== undefined) return this.#controller.signal;
    // Reading `aborted` reads the clock first: after a pause the scheduler's timer may not have run.
    return readClockFirst((this.#controller = new AbortController()).signal, () => { this.#check(); });
  }

  /** Lost at once if its validity has run out (the scheduler's timer may not have run yet). */
  #check(): void {
    if (this.active && performance.now() >= this.lock.validUntil) this.renewals.expire(this);
  }

  /** Aborts the signal, made now if it was never read (it reads aborted from then on). */
  abort(error: PipelockError): void {
    (this.#controller ??= new AbortController()).abort(error);
  }

  /** Takes the lock out of the scheduler without releasing it. */
  stop(): void {
    this.renewals.remove(this);
  }
}

/**
 * The renewal scheduler: one heap and one timer for every auto-extended lock of a Redlock. When the
 * timer fires, every lock due within the next `batchMs` ms (setting renewalWindow) is renewed in one synchronous loop, so
 * the coalescer turns the whole batch into one owner-checked multi-key EVALSHA per master per
 * chunk. Each lock still counts its own quorum from its own slots of the replies.
 */
export class Renewals {
  readonly #heap = new Heap<Renewal>((held) => held.dueAt, (held, index) => { held.slot = index; });
  readonly #masters: MasterSet;
  readonly #batchMs: number;
  readonly #alarm = new Alarm(() => {
    this.#fire();
  });
  #active = 0;

  /** Watches the keys of locks held with `watchHeld`; undefined when no master can be watched. */
  readonly #guard: Guard<Renewal> | undefined;

  constructor(masters: MasterSet, batchMs: number, hub: WatchHub) {
    this.#masters = masters;
    this.#batchMs = batchMs;
    // The guard opens nothing until a lock asks for it (watchHeld may be set per call).
    if (hub.watchable) {
      this.#guard = new Guard<Renewal>(hub.watches, masters.quorum, masters.names, (renewal, lostOn) => { this.#lostOnWatch(renewal, lostOn); });
      hub.listen(this.#guard);
    }
  }

  /** Locks currently kept alive. */
  get size(): number {
    return this.#active;
  }

  /** Keeps `lock` alive from now on (autoExtend); `lock.signal` aborts if it is lost. */
  hold(lock: Lock, duration: number, s: HoldSettings, onLockLost: LockLostHandler | undefined): void {
    const now = performance.now();
    const held = new Renewal(this, lock, duration, s, onLockLost, now);
    lock[kRenewal] = held;
    this.#active++;
    this.#schedule(held, now);
    if (s.watchHeld && lock[kOps].watchable) this.#guard?.add(held);
  }

  /** Synchronous, before any I/O of a release: a renewal decided later can no longer touch the lock. */
  remove(held: Renewal): void {
    if (!held.active) return;
    held.active = false;
    this.#active--;
    // Out of the heap now, not when it would have been due: nothing keeps a released lock reachable.
    if (held.slot >= 0) this.#heap.remove(held.slot);
    this.#guard?.remove(held);
  }

  /** The guard read the lock's keys gone or another's on more masters than the quorum can spare. */
  #lostOnWatch(held: Renewal, lostOn: readonly number[]): void {
    if (!held.active) return;
    const names = lostOn.map((index) => this.#masters.nodes[index]?.name ?? `master ${index}`);
    this.#lose(held, new LockLostError(`${held.lock.resources.join(', ')}: deleted or overwritten on ${lostOn.length} of ${this.#masters.nodes.length} masters (${names.join(', ')}), read on their watch connections`));
  }

  /** Stops everything (quit): each held lock's signal aborts with `reason`. */
  stop(reason: PipelockError): void {
    this.#alarm.cancel();
    for (const held of this.#heap.drain()) if (held.active) this.#lose(held, reason, false);
  }

  #schedule(held: Renewal, now: number): void {
    const lock = held.lock;
    if (lock.extensions >= held.settings.maxExtensions || now + held.duration > held.holdUntil) {
      held.final = true;
      held.dueAt = lock.validUntil;
    } else {
      // A little jitter (up to 5% of the threshold) spreads locks taken together over a few
      // batches instead of one burst per period; renewalWindow gathers them back up.
      const threshold = held.threshold;
      held.dueAt = Math.max(now, lock.validUntil - threshold - Math.random() * 0.05 * threshold);
    }
    this.#heap.push(held);
    this.#alarm.before(held.dueAt);
  }

  #fire(): void {
    const now = performance.now();
    const until = now + this.#batchMs;
    const heap = this.#heap;
    const masters = this.#masters;
    const out: Renewal[] = [];
    for (let held = heap.peek(); held !== undefined; held = heap.peek()) {
      // A lock whose renewal is out is not renewed again with the batch; only its expiry is due.
      if (held.active && (held.dueAt > until || (held.renewing && held.dueAt > now))) break;
      heap.pop();
      if (!held.active) continue;
      if (held.final || now >= held.lock.validUntil) {
        this.expire(held);
        continue;
      }
      // Its validity moved (an extend() of the caller's) while its renewal is out: wait for that one.
      if (held.renewing) {
        out.push(held);
        continue;
      }
      const attempt = masters.attempt(held.lock[kOps].extend, held.lock.resources, held.lock.value, held.ttlArg, held.settings.nodeTimeout, false);
      attempt.context = held;
      attempt.onDecided = this.#decided;
      masters.dispatch(attempt);
      out.push(held);
    }
    // A renewal may wait for a slow master up to nodeTimeout, past the lock's validity: the lock is
    // lost when its validity runs out, not when the renewal gives up (a routine reading the signal
    // meanwhile would act on an expired lock).
    for (const held of out) {
      held.renewing = true;
      held.dueAt = held.lock.validUntil;
      heap.push(held);
    }
    const next = heap.peek();
    if (next !== undefined) this.#alarm.before(next.dueAt);
  }

  readonly #decided = (attempt: Attempt): void => {
    const held = attempt.context as Renewal;
    if (!held.active) return; // released, or its validity ran out, while the renewal was in flight
    held.renewing = false;
    if (held.slot >= 0) this.#heap.remove(held.slot);
    const lock = held.lock;
    const now = performance.now();
    const outcome = extensionOf(attempt, lock.validUntil, now);
    if (outcome === EXTENDED) {
      lock[kRenewed](validUntil(attempt.start, held.duration, held.settings.driftFactor), now);
      publishRenewal(lock, true);
      this.#schedule(held, now);
      return;
    }
    publishRenewal(lock, false);
    if (outcome !== UNCONFIRMED) {
      const nodes = this.#masters.outcomes(attempt);
      const why = outcome === NO_LONGER_HELD ? 'no longer held under its token on a quorum' : 'validity ran out before a renewal succeeded';
      this.#lose(held, new LockLostError(`${lock.resources.join(', ')}: ${why}: ${describeOutcomes(nodes)}`, [], nodes));
      return;
    }
    const misconfiguration = misconfigured(attempt, this.#masters.nodes, () => []);
    if (misconfiguration !== undefined) {
      this.#lose(held, misconfiguration);
      return;
    }
    // Masters failed or timed out, but the lock may still be ours: try again soon, well before expiry.
    held.dueAt = Math.min(now + retryWait(held.settings.retryDelay, held.settings.retryJitter), now + (lock.validUntil - now) / 2);
    this.#heap.push(held);
    this.#alarm.before(held.dueAt);
  };

  /** A lock whose validity ran out (or whose bound was reached) is lost, its keys discarded. */
  expire(held: Renewal): void {
    if (held.final) this.#lose(held, new ExtensionLimitError(held.settings.maxExtensions));
    else this.#lose(held, new LockLostError(`${held.lock.resources.join(', ')}: validity ran out before a renewal succeeded`));
  }

  #lose(held: Renewal, error: PipelockError, discard = true): void {
    this.remove(held);
    // A renewal may have succeeded on some masters after the local validity ran out: their keys
    // are still ours and would block the resource until their TTL.
    if (discard) this.#masters.discard(held.lock.resources, held.lock.value, held.lock[kOps].release);
    const signal: RedlockAbortSignal = held.signal;
    signal.error = error;
    held.lock[kLost]();
    publishLockLost(held.lock.resources, error);
    held.abort(error);
    if (held.onLockLost !== undefined) {
      try {
        held.onLockLost(held.lock, error);
      } catch (hookError) {
        this.#masters.report(hookError);
      }
    }
  }
}


/** Stops renewing an auto-extended lock without releasing it (release, and run-once keeping its key as a marker). */
export function stopRenewing(lock: Lock): void {
  lock[kRenewal]?.stop();
}
