import type { AdmissionWindow } from '../admission/window.js';
import type { Attempt } from '../engine/attempt.js';
import type { MasterSet } from '../engine/masters.js';
import { InvalidArgumentError, LockAbortedError, RedlockClosedError, type ExecutionStats } from '../errors.js';
import { createToken } from '../protocol/token.js';
import { checkOneSlot } from '../transport/cluster/slots.js';
import { isAborted } from '../engine/schedule.js';
import { Passed } from '../waiting/ticket.js';
import { Wait } from '../waiting/wait.js';
import type { Waiters } from '../waiting/waiters.js';
import { resolveCall, type ResolvedCall } from './call.js';
import { acquireSpan, traced } from '../engine/channels.js';
import { mutexOf, type Kind, type KindHost } from './kind.js';
import { kChain, kOps, Lock, passedTo, type CallSettings, type LockOwner } from './lock.js';
import { misconfigured } from '../engine/misconfigured.js';
import { Acquisition, acquisitionError } from './acquisition.js';
import type { Releases } from './release.js';
import { ForeignKeys } from '../engine/foreign.js';
import type { Scheduler } from './hold.js';
import { validUntil } from './validity.js';
import { validateDuration } from '../settings.js';
import { asError } from '../util/checks.js';

/** A first turn's wait has no attempts behind it. */
const noAttempts = (): ReadonlyArray<Promise<ExecutionStats>> => [];

/**
 * The acquire loop of one Redlock, for every kind (src/kinds/): window, waiting, quorum, validity, undo, renewal. A
 * call's state is its Acquisition and, once it waits, one Wait (src/waiting/wait.ts).
 */
export class Acquirer implements KindHost {
  constructor(
    readonly owner: LockOwner,
    readonly masters: MasterSet,
    readonly window: AdmissionWindow,
    readonly waiters: Waiters | undefined,
    readonly renewals: Scheduler,
    readonly releases: Releases,
    /** What a call without settings resolves to. */
    readonly plain: ResolvedCall,
    readonly report: (error: unknown) => void,
  ) {}

  /** Reads what holds a refused mutex's keys when they may not be locks (rationed: src/engine/foreign.ts). */
  readonly #foreign = new ForeignKeys();

  get settings(): ResolvedCall['settings'] {
    return this.plain.settings;
  }

  /** A lock of another kind (src/kinds/), acquired by the same loop as a mutex. */
  acquireKind(kind: Kind, duration: number, settings?: CallSettings): Promise<Lock> {
    let call: ResolvedCall;
    try {
      this.masters.assertOpen();
      validateDuration(duration);
      call = resolveCall(this.settings, this.plain, settings);
      if (call.fencing) throw new InvalidArgumentError('settings.fencing',
        `is not available for a ${kind.name} (fencing tokens order the holders of one mutex)`, true);
    } catch (error) {
      return Promise.reject(asError(error));
    }
    const span = acquireSpan([kind.resource], duration);
    return span === undefined ? this.#start(kind, duration, call) : traced(span, () => this.#start(kind, duration, call));
  }

  /** acquire() under the acquire TracingChannel (using() takes its lock through here). */
  traced(resources: readonly string[], duration: number, call: ResolvedCall): Promise<Lock> {
    const span = acquireSpan(resources, duration);
    return span === undefined ? this.acquire(resources, duration, call) : traced(span, () => this.acquire(resources, duration, call));
  }

  /** A mutex, fenced or not (src/lifecycle/kind.ts). */
  acquire(resources: readonly string[], duration: number, call: ResolvedCall): Promise<Lock> {
    return this.#start(mutexOf(resources, call.fencing, this.masters.clustered), duration, call);
  }

  /** Starts an acquisition; one that must wait for the window waits there as its Acquisition, with no frame of its own. */
  #start(kind: Kind, duration: number, call: ResolvedCall): Promise<Lock> {
    const signal = call.signal;
    if (isAborted(signal)) return Promise.reject(new LockAbortedError(signal?.reason, []));
    const resources = kind.lockKeys;
    const keys = kind.keys;
    // A cluster member runs one operation's keys in one script call, so they must share a slot
    // (a semaphore's or read/write lock's keys do when its name carries a hash tag: '{jobs}').
    if (this.masters.clustered) {
      try {
        checkOneSlot(keys, resources);
      } catch (error) {
        return Promise.reject(asError(error));
      }
    }
    const a = new Acquisition(resources, duration, call, kind, performance.now() + call.settings.acquireTimeout, this.#run);
    // One in line behind callers of this process waiting for the same resources enters the window
    // after that wait (#attempts).
    if (Wait.behind(this.waiters, kind, call.settings)) return this.#attempts(a);
    if (this.window.tryEnter(keys.length)) {
      a.admitted = true;
      return this.#attempts(a);
    }
    const answer = a.answer();
    this.window.queue(a, signal, noAttempts);
    return answer;
  }

  /** Runs an acquisition (its `start`, once admitted from the window's queue). */
  readonly #run = (a: Acquisition): Promise<Lock> => this.#attempts(a);

  /** The attempts of one acquisition, until one wins or the call ends in its error. */
  async #attempts(a: Acquisition): Promise<Lock> {
    const { masters, window } = this;
    try {
      // The first acquisitions after construction wait (one attempt's budget at most) for the
      // connections still opening, so that their writes reach every master at once (src/engine/opening.ts).
      const opening = masters.opened(a.deadline, a.call.settings.nodeTimeout);
      if (opening !== undefined) {
        await opening;
        masters.assertOpen();
      }
      // Not async: most calls wait neither in line nor for room (an await each cost a frame per acquisition).
      const behind = this.#arrive(a);
      if (behind !== undefined) await behind;
      for (;;) {
        // A holder of this process handed its lock to this call while it slept (src/waiting/
        // handover.ts): that handover was admitted and sent as the holder's release.
        const handed = a.wait?.handed();
        if (handed instanceof Passed) {
          const lock = await this.#passed(a, handed);
          if (lock !== undefined) return lock;
          continue;
        }
        const entering = handed === undefined ? this.#enter(a) : undefined;
        if (entering !== undefined) await entering;
        // The attempt's clock (its budget and its validity) starts when the coalescer sends it
        // (src/engine/attempt.ts sent()): no master can set a key before it is sent.
        const attempt = handed ?? this.#send(a);
        // The keys the lock holds if this attempt wins (a semaphore's one slot of its keys); its undo's keys.
        const lockKeys = a.kind.lockKeys;
        a.attempts.push(attempt);
        a.expired = false;
        await attempt.done;
        a.wait?.decided(attempt);
        const latency = performance.now() - attempt.start;
        // A won attempt's room frees now; a lost one's once its undo is answered (#lost): the undo
        // is work the window admitted, and sent outside it, a burst of refusals flooded the masters
        // with undos beside the next window of attempts (their releases and retries timed out).
        if (attempt.won && handed === undefined) window.decided(attempt, a.keys, latency);
        // Won after quit() began: nothing is handed out of a closed Redlock; it is undone below.
        const won = attempt.won && !masters.isClosed();
        const fencing = won ? a.kind.fence(masters, attempt, a.call.settings.nodeTimeout) : undefined;
        const fence = fencing === undefined ? undefined : await fencing;
        if (won && !masters.isClosed() && (fencing === undefined || fence !== undefined)) {
          const lock = this.#grant(a, attempt, lockKeys, fence, handed !== undefined);
          if (lock !== undefined) return lock;
        }
        if (!(await this.#lost(a, attempt, lockKeys, latency))) throw await acquisitionError(masters, a, attempt, this.#foreign);
      }
    } finally {
      a.wait?.leave();
    }
  }

  /** Before the first attempt: the local line for the same resources (joined at once by a call in turn), and its wait. */
  #arrive(a: Acquisition): Promise<boolean> | undefined {
    const s = a.call.settings;
    // A call in turn (an election's campaign) is in line from its arrival: its first attempt goes to the gate too.
    if (!Wait.early(this.waiters, a.kind, s)) return undefined;
    const wait = a.wait = new Wait(this.waiters, a.kind, s, a.deadline, a.terms(), true);
    if (!wait.queued) return undefined;
    // Admitted from the window's queue after others of this process began waiting for the same
    // resources: it waits behind them, and gives its room to someone who can use it.
    if (a.admitted) {
      a.admitted = false;
      this.window.cancel(a.keys);
    }
    return wait.pause(a.call.signal, a.stats(this.masters));
  }

  /** Each attempt waits for its turn in the window, failing with nothing sent when too late or aborted. */
  #enter(a: Acquisition): Promise<void> | undefined {
    if (a.admitted) {
      a.admitted = false;
      return undefined;
    }
    return this.window.tryEnter(a.keys) ? undefined : this.#room(a);
  }

  async #room(a: Acquisition): Promise<void> {
    await this.window.enter(a.keys, a.deadline, a.call.signal, a.stats(this.masters));
    this.masters.assertOpen();
  }

  /** The next attempt: to its gate first when a release woke a call that may be handed the lock, or to every master. */
  #send(a: Acquisition): Attempt {
    const { masters } = this;
    const { kind, ttlArg } = a;
    const budget = a.call.settings.nodeTimeout;
    return a.wait?.send(masters, kind.keys, ttlArg, budget)
      ?? masters.execute(kind.opcode, kind.keys, createToken(), ttlArg, budget, kind.target, kind.extra);
  }

  /** A lock passed to this call as it stands: its Lock, or undefined when the call gave it up as it came. */
  async #passed(a: Acquisition, handed: Passed): Promise<Lock | undefined> {
    const { masters } = this;
    const s = a.call.settings;
    const signal = a.call.signal;
    const lock = new Lock(this.owner, masters, a.resources, handed.token, a.attempts, handed.validUntil, 0, performance.now());
    passedTo(handed.from as Lock, lock);
    lock[kChain] = a.wait!.chain;
    if (!masters.isClosed() && !isAborted(signal) && lock.validity > 0) {
      if (a.call.autoExtend) this.renewals.hold(lock, a.duration, s, a.call.onLockLost);
      return lock;
    }
    // Given up (or closed) as it came: it goes on as any release would, to the next waiter or the masters.
    await this.releases.release(lock, s);
    masters.assertOpen();
    if (isAborted(signal)) throw new LockAbortedError(signal!.reason, a.stats(masters));
    return undefined;
  }

  /** A won attempt's Lock, or undefined when its validity ran out (`expired`) or the call was given up. */
  #grant(a: Acquisition, attempt: Attempt, lockKeys: readonly string[], fence: number | undefined, handed: boolean): Lock | undefined {
    const s = a.call.settings;
    const signal = a.call.signal;
    const until = validUntil(attempt.start, a.duration, s.driftFactor);
    const now = performance.now();
    if (until > now && !isAborted(signal)) {
      const lock = new Lock(this.owner, this.masters, lockKeys, attempt.token, a.attempts, until, 0, now, fence);
      // A late grant of this attempt is then not undone while the lock is held (src/engine/leftovers.ts).
      attempt.context = lock;
      lock[kOps] = a.kind.ops;
      if (handed) lock[kChain] = a.wait!.chain;
      if (a.call.autoExtend) this.renewals.hold(lock, a.duration, s, a.call.onLockLost);
      return lock;
    }
    a.expired = until <= now;
    return undefined;
  }

  /** A lost attempt is undone where it may have written; true to try again, false when the schedule ended. */
  async #lost(a: Acquisition, attempt: Attempt, lockKeys: readonly string[], latency: number): Promise<boolean> {
    const { masters, window } = this;
    const signal = a.call.signal;
    masters.reportRefusals(attempt);
    const stats = a.stats(masters);
    let wait = a.wait;
    if (wait === undefined) {
      wait = a.wait = new Wait(this.waiters, a.kind, a.call.settings, a.deadline, a.terms(), false);
      wait.decided(attempt);
    }
    // Undo this attempt wherever it may have written (timed-out masters too). The undo is queued
    // on every master now, ahead of anything sent later, so a retry does not wait for the slowest
    // master to confirm it; an error reaches the caller only once the undo is done.
    const undone = masters.cleanup(attempt, lockKeys, a.kind.ops.release);
    if (masters.isClosed()) {
      await undone;
      throw new RedlockClosedError();
    }
    const misconfiguration = misconfigured(attempt, masters.nodes, stats);
    if (misconfiguration !== undefined) {
      await undone;
      throw misconfiguration;
    }
    if (!attempt.won) {
      const n = a.keys;
      void undone.then(() => { window.decided(attempt, n, latency); });
    }
    // A semaphore refused for its slot while a quorum offered another tries that one at once.
    if (a.kind.refused(attempt) && !isAborted(signal) && performance.now() < a.deadline) return true;
    // A retry goes through the window like any attempt, so retries add no load faster than the
    // masters drain it; none starts past the deadline. The pause ends early on a release.
    const retry = await wait.pause(signal, stats).catch(async (error: unknown) => {
      await undone;
      throw error;
    });
    // An error is built after the undo, by when the late masters' votes of this attempt are in too.
    if (!retry) await undone;
    return retry;
  }
}
