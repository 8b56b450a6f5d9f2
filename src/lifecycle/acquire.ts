import type { AdmissionWindow } from '../admission/window.js';
import type { Attempt } from '../engine/attempt.js';
import type { MasterSet } from '../engine/masters.js';
import { InvalidArgumentError, LockAbortedError, LockExpiredError, RedlockClosedError, type ExecutionStats } from '../errors.js';
import { OP_ACQUIRE, OP_FENCED_ACQUIRE } from '../protocol/opcodes.js';
import { createToken } from '../protocol/token.js';
import { checkOneSlot } from '../transport/cluster/slots.js';
import { isAborted } from '../waiting/schedule.js';
import { Passed, type HandoverTerms } from '../waiting/ticket.js';
import { Wait } from '../waiting/wait.js';
import type { Waiters } from '../waiting/waiters.js';
import { resolveCall, type ResolvedCall } from './call.js';
import { acquireSpan, traced } from '../engine/channels.js';
import { acquireError, describeResources } from './failure.js';
import { counterKeys, raiseFence } from './fencing.js';
import type { Kind, KindHost } from './kind.js';
import { kChain, kOps, Lock, passedTo, type CallSettings, type LockOwner } from './lock.js';
import { misconfigured } from './misconfigured.js';
import { QueuedAcquisition } from './queued.js';
import type { Releases } from './release.js';
import { ForeignKeys } from './foreign.js';
import type { Scheduler } from './scheduler.js';
import { drift, validUntil } from './validity.js';
import { validateDuration, type ResolvedSettings } from '../settings.js';
import { asError } from '../util/checks.js';

/** A first turn's wait has no attempts behind it. */
const noAttempts = (): ReadonlyArray<Promise<ExecutionStats>> => [];

/**
 * The acquire loop of one Redlock: a mutex, fenced or not, or a lock of another kind (src/kinds/),
 * through the admission window, waiting, the quorum, validity, the undo of a lost attempt and
 * renewal. One object per Redlock; a call's state is its arguments and, once it has to wait, one
 * Wait (src/waiting/wait.ts), the only thing of the waiting machinery this loop talks to.
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

  /** Reads what holds a refused mutex's keys when they may not be locks (rationed: src/lifecycle/foreign.ts). */
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
      if (call.fencing) throw new InvalidArgumentError('settings.fencing', `is not available for a ${kind.name} (fencing tokens order the holders of one mutex)`, true);
    } catch (error) {
      return Promise.reject(asError(error));
    }
    const span = acquireSpan([kind.resource], duration);
    return span === undefined ? this.#kind(duration, call, kind) : traced(span, () => this.#kind(duration, call, kind));
  }

  #kind(duration: number, call: ResolvedCall, kind: Kind): Promise<Lock> {
    return this.acquire(kind.lockKeys, duration, call, kind);
  }

  /** acquire() under the acquire TracingChannel (using() takes its lock through here). */
  traced(resources: readonly string[], duration: number, call: ResolvedCall): Promise<Lock> {
    const span = acquireSpan(resources, duration);
    return span === undefined ? this.#mutex(resources, duration, call) : traced(span, () => this.#mutex(resources, duration, call));
  }

  #mutex(resources: readonly string[], duration: number, call: ResolvedCall): Promise<Lock> {
    return this.acquire(resources, duration, call);
  }

  /**
   * Starts an acquisition. One that must wait for its first turn in the window (src/admission/
   * window.ts) waits there as one object (src/lifecycle/queued.ts) with no frame of its own.
   */
  acquire(resources: readonly string[], duration: number, call: ResolvedCall, kind?: Kind): Promise<Lock> {
    const s = call.settings;
    const signal = call.signal;
    if (isAborted(signal)) return Promise.reject(new LockAbortedError(signal?.reason, []));
    const counters = call.fencing ? counterKeys(resources, this.masters.clustered) : undefined;
    const keys = keysOf(resources, counters, kind);
    // A cluster member runs one operation's keys in one script call, so they must share a slot
    // (a semaphore's or read/write lock's keys do when its name carries a hash tag: '{jobs}').
    if (this.masters.clustered) {
      try {
        checkOneSlot(keys, resources);
      } catch (error) {
        return Promise.reject(asError(error));
      }
    }
    const deadline = performance.now() + s.acquireTimeout;
    // One in line behind callers of this process waiting for the same resources enters the window
    // after that wait (#attempts).
    if (Wait.behind(this.waiters, kind?.waitKeys ?? resources, s, kind?.waiting ?? 'line')) return this.#attempts(resources, duration, call, kind, keys, counters, deadline, false);
    if (this.window.tryEnter(keys.length)) return this.#attempts(resources, duration, call, kind, keys, counters, deadline, true);
    const queued = new QueuedAcquisition(keys.length, deadline, resources, duration, call, kind, counters, this.#startQueued);
    const answer = queued.answer();
    this.window.queue(queued, signal, noAttempts);
    return answer;
  }

  /** A queued acquisition's turn came (src/lifecycle/queued.ts): its keys are in the window. */
  readonly #startQueued = (q: QueuedAcquisition): Promise<Lock> =>
    this.#attempts(q.resources, q.duration, q.call, q.kind, keysOf(q.resources, q.counters, q.kind), q.counters, q.deadline, true);

  /** The attempts of one acquisition; `admitted`: the first one's keys are already in the window. */
  async #attempts(
    resources: readonly string[], duration: number, call: ResolvedCall, kind: Kind | undefined,
    keys: readonly string[], counters: readonly string[] | undefined, deadline: number, admitted: boolean,
  ): Promise<Lock> {
    const { masters, window } = this;
    const s = call.settings;
    const signal = call.signal;
    const attempts: Attempt[] = [];
    const ttlArg = String(duration);
    // node-redlock's stats of the attempts, for what waits and for errors: made when first needed
    // (most calls win their first attempt), and bound, not an arrow: an arrow capturing `this` and
    // `attempts` moves them into a heap context kept for the whole wait (docs/decisions/0002-acquire-memory.md).
    let stats: (() => ReadonlyArray<Promise<ExecutionStats>>) | undefined;
    const waitKeys = kind?.waitKeys ?? resources;
    const mode = kind?.waiting ?? 'line';
    // Made when the call first has to wait (with its handover terms): most calls win their first attempt.
    let wait: Wait | undefined;
    try {
      // The first acquisitions after construction wait (one attempt's budget at most) for the
      // connections still opening, so that their writes reach every master at once (src/engine/opening.ts).
      const opening = masters.opened(deadline, s.nodeTimeout);
      if (opening !== undefined) {
        await opening;
        masters.assertOpen();
      }
      // A call in turn (an election's campaign) is in line from its arrival: its first attempt goes to the gate too.
      if (Wait.early(this.waiters, waitKeys, s, mode, call.inTurn)) {
        wait = new Wait(this.waiters, waitKeys, s, deadline, mode, handoverTerms(kind, counters, duration, ttlArg, s, call.inTurn !== undefined), true, call.inTurn);
        if (wait.queued) {
          // Admitted from the window's queue after others of this process began waiting for the
          // same resources: it waits behind them, and gives its room to someone who can use it.
          if (admitted) {
            admitted = false;
            window.cancel(keys.length);
          }
          await wait.pause(signal, stats ??= masters.stats.bind(masters, attempts));
        }
      }
      for (;;) {
        // A holder of this process handed its lock to this call while it slept (src/lifecycle/
        // handover.ts): that handover was admitted and sent as the holder's release.
        const handed = wait?.handed();
        if (handed instanceof Passed) {
          const lock = new Lock(this.owner, masters, resources, handed.token, attempts, handed.validUntil, 0, performance.now());
          passedTo(handed.from as Lock, lock);
          lock[kChain] = wait!.chain;
          if (!masters.isClosed() && !isAborted(signal) && lock.validity > 0) {
            if (call.autoExtend) this.renewals.hold(lock, duration, s, call.onLockLost);
            return lock;
          }
          // Given up (or closed) as it came: it goes on as any release would, to the next waiter or the masters.
          await this.releases.release(lock, s);
          masters.assertOpen();
          if (isAborted(signal)) throw new LockAbortedError(signal!.reason, stats ??= masters.stats.bind(masters, attempts));
          continue;
        }
        // Each attempt waits for its turn in the client (src/admission/window.ts) and fails there,
        // with nothing sent, when its turn would come after `deadline` or its signal aborts first.
        if (admitted) {
          admitted = false;
        } else if (handed === undefined && !window.tryEnter(keys.length)) {
          await window.enter(keys.length, deadline, signal, stats ??= masters.stats.bind(masters, attempts));
          masters.assertOpen();
        }
        // The attempt's clock (its budget and its validity) starts when the coalescer sends it
        // (src/engine/attempt.ts sent()): no master can set a key before it is sent.
        const attempt = handed ?? (kind !== undefined
          ? masters.execute(kind.opcode, keys, createToken(), ttlArg, s.nodeTimeout, kind.target, kind.extra)
          : wait?.send(masters, keys, ttlArg, s.nodeTimeout) ?? masters.execute(counters === undefined ? OP_ACQUIRE : OP_FENCED_ACQUIRE, keys, createToken(), ttlArg, s.nodeTimeout));
        // The keys the lock holds if this attempt wins (a semaphore's one slot of its keys); its undo's keys.
        const lockKeys = kind === undefined ? resources : kind.lockKeys;
        attempts.push(attempt);
        await attempt.done;
        wait?.decided(attempt);
        const latency = performance.now() - attempt.start;
        // A won attempt's room frees now; a lost one's once its undo is answered (below): the undo
        // is work the window admitted, and sent outside it, a burst of refusals flooded the masters
        // with undos beside the next window of attempts (their releases and retries timed out).
        if (attempt.won && handed === undefined) window.decided(attempt, keys.length, latency);
        let expired = false;
        // Won after quit() began: nothing is handed out of a closed Redlock; it is undone below.
        const won = attempt.won && !masters.isClosed();
        const fence = won && counters !== undefined ? await raiseFence(masters, counters, attempt.value, s.nodeTimeout) : undefined;
        if (won && !masters.isClosed() && (counters === undefined || fence !== undefined)) {
          const until = validUntil(attempt.start, duration, s.driftFactor);
          const now = performance.now();
          if (until > now && !isAborted(signal)) {
            const lock = new Lock(this.owner, masters, lockKeys, attempt.token, attempts, until, 0, now, fence);
            // A late grant of this attempt is then not undone while the lock is held (src/engine/leftovers.ts).
            attempt.context = lock;
            if (kind !== undefined) lock[kOps] = kind.ops;
            else if (handed !== undefined) lock[kChain] = wait!.chain;
            if (call.autoExtend) this.renewals.hold(lock, duration, s, call.onLockLost);
            return lock;
          }
          expired = until <= now;
        }
        masters.reportRefusals(attempt);
        stats ??= masters.stats.bind(masters, attempts);
        if (wait === undefined) {
          wait = new Wait(this.waiters, waitKeys, s, deadline, mode, handoverTerms(kind, counters, duration, ttlArg, s, call.inTurn !== undefined), false, call.inTurn);
          wait.decided(attempt);
        }
        // Undo this attempt wherever it may have written (timed-out masters too). The undo is queued
        // on every master now, ahead of anything sent later, so a retry does not wait for the slowest
        // master to confirm it; an error reaches the caller only once the undo is done.
        const undone = masters.cleanup(attempt, lockKeys, kind?.ops.release);
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
          const n = keys.length;
          void undone.then(() => { window.decided(attempt, n, latency); });
        }
        // A semaphore refused for its slot while a quorum offered another tries that one at once.
        if (kind?.refused(attempt) === true && !isAborted(signal) && performance.now() < deadline) continue;
        // A retry goes through the window like any attempt, so retries add no load faster than the
        // masters drain it; none starts past the deadline. The pause ends early on a release.
        const retry = await wait.pause(signal, stats).catch(async (error: unknown) => {
          await undone;
          throw error;
        });
        if (retry) continue;
        // Built after the undo, by when the late masters' votes of this attempt are in too.
        await undone;
        if (isAborted(signal)) throw new LockAbortedError(signal?.reason, stats);
        if (expired) throw new LockExpiredError(`the quorum answered after the lock's validity ran out (${duration} ms, driftFactor ${s.driftFactor})`, stats, masters.outcomes(attempt));
        throw await acquireError(masters, `could not acquire ${describeResources(resources)} after ${attempts.length} attempt(s)`, attempt, resources, kind === undefined ? this.#foreign : undefined, s.nodeTimeout, stats);
      }
    } finally {
      wait?.leave();
    }
  }
}

/**
 * What a lock handed over to a waiting call must be (src/lifecycle/handover.ts): plain mutexes only.
 * A campaign (`fresh`) is never passed its predecessor's lock as it stands: an election's records
 * are believed where the lock key holds the token they name, so a passed token would make the old
 * leader's records count again wherever its resign's erase did not land; it gets a new token (H).
 */
function handoverTerms(
  kind: Kind | undefined, counters: readonly string[] | undefined, duration: number, ttlArg: string, s: ResolvedSettings, fresh: boolean,
): HandoverTerms | undefined {
  if (kind !== undefined || counters !== undefined) return undefined;
  return { ttlArg, budget: s.nodeTimeout, least: fresh ? Infinity : duration - 2 * drift(duration, s.driftFactor) };
}

/** What one acquisition attempt sends: the kind's keys, or the resources and their fencing counters. */
function keysOf(resources: readonly string[], counters: readonly string[] | undefined, kind: Kind | undefined): readonly string[] {
  return kind !== undefined ? kind.keys : counters === undefined ? resources : [...resources, ...counters];
}
