import type { Attempt } from '../engine/attempt.js';
import { QuorumUnreachableError } from '../errors.js';
import { kChain, kExtending, kOps, kPassedOn, kRenewal, MUTEX_OPS, type Lock } from './lock.js';
import type { MasterSet } from '../engine/masters.js';
import { describeOutcomes } from '../engine/records.js';
import { describeResources } from '../engine/failure.js';
import type { ResolvedSettings } from '../settings.js';
import { answeredByQuorum } from '../engine/quorum.js';
import { ReleaseResult } from './release-result.js';
import { misconfigured } from '../engine/misconfigured.js';
import { stopRenewing } from './renewal.js';
import { onSchedule } from '../engine/schedule.js';
import { handOver, heirOf, passable, type Outgoing } from '../waiting/handover.js';
import { Passed, type Ticket } from '../waiting/ticket.js';
import type { Waiters } from '../waiting/waiters.js';
import type { AdmissionWindow } from '../admission/window.js';

const noAttempts = (): never[] => [];

/** A plain mutex's Lock as a handover sees it (src/waiting/handover.ts). */
function outgoingOf(lock: Lock): Outgoing {
  return {
    resources: lock.resources, value: lock.value, validUntil: lock.validUntil, chain: lock[kChain],
    stands: lock[kExtending] === 0 && (lock[kRenewal] !== undefined || lock.extensions === 0),
  };
}

/**
 * Redlock.release(): the owner-checked delete on every master, decided at the quorum, or a hand-over to a local waiter
 * (src/waiting/handover.ts). Releases queue in the window ahead of acquisitions, and one no quorum answered is
 * retried on the unanswered masters while the keys may live (docs/decisions/0012, "release.ts").
 */
export class Releases {
  constructor(
    readonly masters: MasterSet,
    readonly window: AdmissionWindow,
    readonly waiters: Waiters | undefined,
  ) {}

  async release(lock: Lock, s: ResolvedSettings): Promise<ReleaseResult> {
    // Its keys are another Lock's now (src/waiting/handover.ts): an owner-checked delete of its
    // token would take them from under that one.
    if (lock[kPassedOn]) return new ReleaseResult(this.masters, undefined);
    // Out of the scheduler before any I/O: a renewal decided from now on cannot touch the lock, and
    // one already queued reaches each master before this release (same connection, in order), as an
    // owner-checked PEXPIRE that cannot bring a deleted key back.
    stopRenewing(lock);
    // Past this its keys are gone anyway: no retry of the release is worth making.
    const expires = lock.expiration;
    lock.expiration = 0;
    const outgoing = this.waiters === undefined || lock[kOps] !== MUTEX_OPS ? undefined : outgoingOf(lock);
    const heir = outgoing === undefined ? undefined : heirOf(this.waiters!, outgoing, expires);
    if (heir !== undefined) {
      if (!passable(outgoing!, heir)) return this.#handOver(lock, outgoing!, s, expires, heir);
      if (heir.receive(new Passed(lock.value, lock.validUntil, lock))) {
        lock[kPassedOn] = true;
        return new ReleaseResult(this.masters, undefined);
      }
      // It gave up as it was being passed the lock: released the usual way.
    }
    const attempt = await this.window.runFirst(lock.resources.length, () => this.#send(lock, s));
    if (answeredByQuorum(attempt)) return new ReleaseResult(this.masters, attempt);
    return this.#again(lock, s, expires, [attempt]);
  }

  /** The owner-checked delete of `lock`'s keys on every master. */
  #send(lock: Lock, s: ResolvedSettings): Attempt {
    return this.masters.execute(lock[kOps].release, lock.resources, lock.value, '0', s.nodeTimeout);
  }

  async #handOver(lock: Lock, outgoing: Outgoing, s: ResolvedSettings, expires: number, heir: Ticket): Promise<ReleaseResult> {
    const n = lock.resources.length;
    let attempt: Attempt;
    try {
      attempt = await this.window.runFirst(n, () => handOver(this.masters, outgoing, heir));
    } catch (error) {
      heir.receive(undefined);
      throw error;
    }
    if (attempt.won) {
      // The heir gave up while the keys passed to it: they are nobody's, and deleted before this resolves.
      if (!heir.receive(attempt)) await this.masters.cleanup(attempt, lock.resources);
      return new ReleaseResult(this.masters, attempt);
    }
    // Refused or unanswered on a quorum: the new token goes wherever it may have been written, the
    // lock is released as usual, and the heir tries the masters, behind that release on each connection.
    void this.masters.cleanup(attempt, lock.resources);
    // The heir wakes once the release is sent (or could not be: closed), not once it is decided.
    const sent = (): Attempt => {
      try {
        return this.#send(lock, s);
      } finally {
        heir.receive(undefined);
      }
    };
    const release = await this.window.runFirst(n, sent).catch((error: unknown) => {
      heir.receive(undefined);
      throw error;
    });
    if (answeredByQuorum(release)) return new ReleaseResult(this.masters, release);
    return this.#again(lock, s, expires, [release]);
  }

  /**
   * The tries after the first (`tries`), each on the masters that answered none before, on the retry schedule (src/
   * engine/schedule.ts) while the keys may live: a wait past `expires` ends it.
   */
  async #again(lock: Lock, s: ResolvedSettings, expires: number, tries: Attempt[]): Promise<ReleaseResult> {
    const n = lock.resources.length;
    const room = (): number => this.masters.isClosed() ? -1 : expires - Date.now();
    const released = await onSchedule(s, undefined, noAttempts, room, 'stop', async (made) => {
      if (made > 1) {
        this.masters.assertOpen();
        const previous = tries.at(-1)!;
        const attempt = await this.window.runFirst(n, () => this.masters.retry(previous, s.nodeTimeout));
        tries.push(attempt);
        if (answeredByQuorum(attempt)) return new ReleaseResult(this.masters, attempt, tries);
      }
      const misconfiguration = misconfigured(tries.at(-1)!, this.masters.nodes, () => this.masters.stats(tries));
      if (misconfiguration !== undefined) throw misconfiguration;
      return undefined;
    });
    if (released !== undefined) return released;
    const nodes = this.masters.outcomes(tries.at(-1)!);
    throw new QuorumUnreachableError(`could not confirm the release of ${describeResources(lock.resources)} on a quorum after `
      + `${tries.length} attempt(s): ${describeOutcomes(nodes)}`, this.masters.stats(tries), nodes);
  }
}
