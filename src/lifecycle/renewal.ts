import type { Attempt } from '../engine/attempt.js';
import { publishLockLost, publishRenewal } from '../engine/channels.js';
import { ExtensionLimitError, LockLostError, LockRevokedError, type PipelockError } from '../errors.js';
import { Alarm } from '../util/alarm.js';
import { Heap } from '../util/heap.js';
import { kLost, kOps, kRefused, kRenewal, type Lock, type LockLostHandler, type RedlockAbortSignal } from './lock.js';
import { Renewal, type HoldSettings, type MayRenew, type RenewalHost, type Scheduler } from './hold.js';
import type { MasterSet } from '../engine/masters.js';
import { OP_LEADER_READ } from '../protocol/opcodes.js';
import { revokedKey, revokedReasonFor } from '../engine/keys.js';
import { describeOutcomes } from '../engine/records.js';
import { retryWait, spread } from '../engine/schedule.js';
import { misconfigured } from '../engine/misconfigured.js';
import { validUntil } from './validity.js';
import { EXTENDED, extensionOf, NO_LONGER_HELD, UNCONFIRMED } from './extend.js';
import { Guard } from '../watch/guard.js';
import type { WatchHub } from '../watch/hub.js';

export type { HoldSettings } from './hold.js';

/** How soon a renewal skipped by MayRenew is asked again, in ms. */
const kRecheckMs = 50;

/**
 * The renewal scheduler: one heap and one timer for every auto-extended lock. Each firing renews every lock due
 * within `renewalWindow` ms in one loop, so each master gets one multi-key EVALSHA per chunk.
 */
export class Renewals implements Scheduler, RenewalHost {
  readonly #heap = new Heap<Renewal>((held) => held.dueAt, (held, index) => { held.slot = index; });
  readonly #masters: MasterSet;
  readonly #batchMs: number;
  readonly #alarm = new Alarm(() => {
    this.#fire();
  });
  #active = 0;

  /** Watches the keys of locks held with `watchHeld`; undefined when no master can be watched. */
  readonly #guard: Guard<Renewal> | undefined;

  readonly #mayRenew: MayRenew | undefined;

  constructor(masters: MasterSet, batchMs: number, hub: WatchHub, mayRenew?: MayRenew) {
    this.#masters = masters;
    this.#batchMs = batchMs;
    this.#mayRenew = mayRenew;
    // The guard opens nothing until a lock asks for it (watchHeld may be set per call).
    if (hub.watchable) {
      this.#guard = new Guard<Renewal>(hub.watches, masters.quorum, masters.names,
        (renewal, lostOn, revoked) => { this.#lostOnWatch(renewal, lostOn, revoked); });
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
  #lostOnWatch(held: Renewal, lostOn: readonly number[], revoked: string | undefined): void {
    if (!held.active) return;
    if (revoked !== undefined) {
      this.#lose(held, new LockRevokedError(held.lock.resources.join(', '), revoked));
      return;
    }
    const names = lostOn.map((index) => this.#masters.nodes[index]?.name ?? `master ${index}`);
    this.#lose(held,
      new LockLostError(`${held.lock.resources.join(', ')}: deleted or overwritten on ${lostOn.length} of ${this.#masters.nodes.length} `
        + `masters (${names.join(', ')}), read on their watch connections`));
  }

  /** Stops everything (quit): each held lock's signal aborts with `reason`. */
  stop(reason: PipelockError): void {
    this.#alarm.cancel();
    for (const held of this.#heap.drain()) if (held.active) this.#lose(held, reason, false);
  }

  /** This thread's scheduler renews from the start and opens nothing of its own. */
  opened(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  /** Its validity or duration moved (extend()): due again from them, or at its expiry while a renewal is out. */
  reschedule(held: Renewal): void {
    if (!held.active) return;
    if (held.slot >= 0) this.#heap.remove(held.slot);
    if (!held.renewing) {
      this.#schedule(held, performance.now());
      return;
    }
    held.dueAt = held.lock.validUntil;
    this.#heap.push(held);
    this.#alarm.before(held.dueAt);
  }

  #schedule(held: Renewal, now: number): void {
    const lock = held.lock;
    held.final = lock.extensions >= held.settings.maxExtensions || now + held.duration > held.holdUntil;
    if (held.final) {
      held.dueAt = lock.validUntil;
    } else {
      // A little jitter (up to 5% of the threshold) spreads locks taken together over a few
      // batches instead of one burst per period; renewalWindow gathers them back up.
      const threshold = held.threshold;
      held.dueAt = Math.max(now, lock.validUntil - threshold - spread(0.05 * threshold));
    }
    this.#heap.push(held);
    this.#alarm.before(held.dueAt);
  }

  #fire(): void {
    const now = performance.now();
    const wall = Date.now(); // the second guard, as Renewal's getter's: the host may have been suspended
    const until = now + this.#batchMs;
    const heap = this.#heap;
    const masters = this.#masters;
    const out: Renewal[] = [];
    const skipped: Renewal[] = [];
    for (let held = heap.peek(); held !== undefined; held = heap.peek()) {
      // A lock whose renewal is out is not renewed again with the batch; only its expiry is due.
      if (held.active && (held.dueAt > until || (held.renewing && held.dueAt > now))) break;
      heap.pop();
      if (!held.active) continue;
      if (held.final || now >= held.lock.validUntil || wall >= held.lock.expiration) {
        this.expire(held, !held.final && now < held.lock.validUntil);
        continue;
      }
      // Its expiry is not yet due while its renewal is out (a reschedule put it back): wait for that one.
      if (held.renewing) {
        out.push(held);
        continue;
      }
      if (this.#mayRenew !== undefined && !this.#mayRenew(held.lock)) {
        skipped.push(held);
        continue;
      }
      const attempt =
        masters.attempt(held.lock[kOps].extend, held.lock.resources, held.lock.value, held.ttlArg, held.settings.nodeTimeout, false);
      attempt.context = held;
      attempt.onDecided = this.#decided;
      held.sent = held.epoch;
      held.sentFor = held.duration;
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
    // Not renewed now, asked again soon: it runs out at its validity unless renewed before.
    for (const held of skipped) {
      held.dueAt = Math.min(held.lock.validUntil, now + kRecheckMs);
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
      held.renewed(validUntil(attempt.start, held.sentFor, held.settings.driftFactor), held.sent, now);
      publishRenewal(lock, true);
      this.#schedule(held, now);
      return;
    }
    publishRenewal(lock, false);
    if (outcome !== UNCONFIRMED) {
      const nodes = this.#masters.outcomes(attempt);
      const why = outcome === NO_LONGER_HELD ? 'no longer held under its token on a quorum' : 'validity ran out before a renewal succeeded';
      const error = new LockLostError(`${lock.resources.join(', ')}: ${why}: ${describeOutcomes(nodes)}`, [], nodes);
      if (outcome === NO_LONGER_HELD && lock[kOps].watchable) this.#refused(held, error);
      else this.#lose(held, error);
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

  /**
   * Refused on a quorum: lost with a force-release's reason if a revoked-marker stands beside a key (read once), else
   * with `error`; a read of its signal meanwhile loses it at once.
   */
  #refused(held: Renewal, error: LockLostError): void {
    held.renewing = true;
    held.refusal = error;
    held.lock[kRefused]();
    held.dueAt = held.lock.validUntil;
    this.#heap.push(held);
    this.#alarm.before(held.dueAt);
    void revokedReason(this.#masters, held.lock, held.settings.nodeTimeout).then((reason) => {
      if (held.active) this.#lose(held, reason === undefined ? error : new LockRevokedError(held.lock.resources.join(', '), reason));
    });
  }

  /**
   * Out of validity or bound: lost, keys discarded. Lost by the wall clock alone (`early`) it keeps its keys till
   * their TTL: only a stepped clock gets here so, and the holder may still act within its validity.
   */
  expire(held: Renewal, early = false): void {
    const resources = held.lock.resources.join(', ');
    if (held.refusal !== undefined) this.#lose(held, held.refusal);
    else if (early)
      this.#lose(held, new LockLostError(`${resources}: the wall clock passed its expiration (a suspended host, or a clock step)`), false);
    else if (held.final) this.#lose(held, new ExtensionLimitError(held.settings.maxExtensions));
    else this.#lose(held, new LockLostError(`${resources}: validity ran out before a renewal succeeded`));
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


/** A force-release's reason, read where a revoked-marker for `lock`'s token stands beside a key; undefined if none or unread. */
async function revokedReason(masters: MasterSet, lock: Lock, budget: number): Promise<string | undefined> {
  const resources = lock.resources;
  if (masters.isClosed()) return undefined;
  // One read per resource: a lock key and its marker share a cluster slot, two resources may not.
  let reads;
  try {
    reads = await Promise.all(resources.map((resource) => masters.read(OP_LEADER_READ, [resource, revokedKey(resource)], budget).done));
  } catch {
    return undefined; // closed meanwhile: the refusal's own error stands
  }
  for (const read of reads) {
    for (const answer of read.answers) {
      const marker: unknown = Array.isArray(answer) ? answer[1] : undefined;
      const text = Buffer.isBuffer(marker) ? marker.toString() : marker;
      const reason = typeof text === 'string' ? revokedReasonFor(text, lock.value) : undefined;
      if (reason !== undefined) return reason;
    }
  }
  return undefined;
}

/** Stops renewing an auto-extended lock without releasing it (release, and run-once keeping its key as a marker). */
export function stopRenewing(lock: Lock): void {
  lock[kRenewal]?.stop();
}
