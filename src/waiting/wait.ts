import { publishAcquireRetry } from '../engine/channels.js';
import type { ExecutionStats } from '../errors.js';
import { isAborted, mayRetry, retryWait, sleep } from './schedule.js';
import { FAILED, FOR, TIMEOUT, type Attempt } from '../engine/attempt.js';
import { lostToErrors } from '../engine/quorum.js';
import { turnId } from './turns.js';
import type { HandoverTerms, Passed, Ticket, Waiters, WaitMode } from './waiters.js';

/** The settings an acquire call's retries follow (a ResolvedSettings fits). */
export interface PaceSettings {
  readonly retryCount: number;
  readonly retryDelay: number;
  readonly retryJitter: number;
}

/** The first split's backoff window, ms: about a local round trip to the masters. */
const kSplitBackoffMs = 1;
const kMaxSplitDoublings = 4;

/**
 * When one acquire call tries again: node-redlock's retry schedule (`retryCount` slots of
 * `retryDelay ± retryJitter`, never past the call's deadline), in which a wake-up (src/waiting/
 * waiters.ts) brings the next attempt forward. An attempt made on a wake-up does not use up a slot:
 * refused again, the call sleeps out the rest of the same slot. So the total time a call may wait
 * is what its settings say, and it simply stops sleeping past a release.
 *
 * A call queued behind another of its process (not the head) makes no attempt of its own: each
 * slot that runs out while it waits counts as one, the head's attempts standing in for it. A call
 * that never got to try makes one attempt when its schedule ends, so its error is a real one.
 */
export class Pacer {
  /** Attempts made or stood in for, as node-redlock counts them against retryCount. */
  #made = 0;
  #slotEnd = -Infinity;
  #woken = false;
  #tried = false;
  #ticket: Ticket | undefined;
  #token: string | undefined;
  /** Consecutive attempts lost to a split vote (some masters said yes, no quorum did). */
  #splits = 0;
  /** The last attempt went out on a wake-up, so it used no slot of the schedule. */
  #lastWoken = false;
  /**
   * The last attempt was lost to masters' errors or silence, not refused by a quorum: the next
   * sleep takes a full slot and hears no wake-up. A master that answers with an error (READONLY
   * after a failover, NOPERM) still serves reads on the watch connection, which then found the key
   * free and woke the call at once: thousands of attempts a second, outside the schedule.
   */
  #errored = false;
  /** Per master, whether it failed or timed out in the last attempt: its reads say nothing of whether the lock can be had there. */
  #unreachable: boolean[] | undefined;
  /** What a lock handed to this call must be (src/lifecycle/handover.ts); set for plain mutexes only. */
  terms: HandoverTerms | undefined;

  constructor(
    readonly waiters: Waiters | undefined,
    readonly resources: readonly string[],
    readonly settings: PaceSettings,
    readonly deadline: number,
    /**
     * `queue` behind this process's other callers, or (where many may hold at once) wait alone: queued
     * behind one head, a process took its permits one acquisition at a time.
     */
    readonly mode: WaitMode = 'queue',
    /** False for a schedule made after the call's first attempt: it was not a newcomer to queue. */
    arriving = true,
  ) {
    if (arriving && Pacer.joins(waiters, resources, settings, mode)) this.#ticket = waiters!.join(resources);
  }

  /**
   * Whether a newcomer queues behind the calls of this process already waiting for the same
   * resources, instead of racing them to the masters (with retryCount 0 it only ever makes one attempt).
   */
  static joins(waiters: Waiters | undefined, resources: readonly string[], settings: PaceSettings, mode: WaitMode = 'queue'): boolean {
    return waiters !== undefined && mode === 'queue' && settings.retryCount !== 0 && waiters.queued(resources);
  }

  /** Whether the call must wait for its turn before its first attempt. */
  get queued(): boolean {
    return this.#ticket !== undefined && !this.#ticket.head;
  }

  /**
   * The master the next attempt goes to first (src/waiting/gate.ts), or -1: to all at once. Only an
   * attempt a wake-up brought forward is gated; the schedule's own go to every master, so a gate
   * holding a stale key costs at most one slot.
   */
  get gate(): number {
    return this.#woken && this.#ticket !== undefined ? this.#ticket.gate : -1;
  }

  /** The key of the queue at its gate (src/waiting/turns.ts), once it has taken a turn there. */
  get queue(): string | undefined {
    return this.#ticket?.queue;
  }

  set queue(queue: string | undefined) {
    this.#ticket!.queue = queue;
  }

  /** This call's id in the queue at its gate; the same for all its attempts. */
  turn(): string {
    return this.#ticket!.turn ??= turnId();
  }

  /** A gated attempt was decided: granted at the gate, the call left the queue there; refused, it is in it. */
  gated(attempt: Attempt, gate: number): void {
    const ticket = this.#ticket;
    if (ticket === undefined) return;
    ticket.queuedAt = attempt.votes[gate] === FOR ? -1 : gate;
    // Free, but another's turn: the call listens for the lock being taken, not for it being free.
    ticket.yielded = attempt.counts?.[gate] === -1;
  }

  /** An attempt went out with `token`. */
  attempted(token: string): void {
    this.#tried = true;
    this.#token = token;
    if (this.#ticket !== undefined) this.#ticket.yielded = false;
    if (!this.#woken) this.#made++;
    this.#lastWoken = this.#woken;
    this.#woken = false;
  }

  /**
   * The attempt lost. Refused by a quorum, it waits to be woken by a release. Lost to errors (the
   * refusals alone left a quorum possible), it uses a slot of the schedule — one a wake-up brought
   * forward is counted now — and the next one starts after a full delay: an error is never cheaper
   * to retry than a refusal.
   *
   * Split (some masters granted it): heads of several processes woken by the same release split the
   * masters between them and all lose (Redlock's livelock); each split doubles a random pause
   * before the next woken attempt (binary exponential backoff, as Ethernet resolves collisions),
   * so that one of them goes first next time.
   */
  refused(attempt: Attempt): void {
    const split = attempt.votesFor > 0 || attempt.votesStalled > 0;
    this.#splits = split ? Math.min(this.#splits + 1, kMaxSplitDoublings) : 0;
    this.#unreachable = attempt.votesUnreachable === 0 ? undefined : attempt.votes.map((vote) => vote === FAILED || vote === TIMEOUT);
    this.#errored = lostToErrors(attempt);
    if (!this.#errored) return;
    if (this.#lastWoken) this.#made++;
    this.#slotEnd = -Infinity;
  }

  /**
   * Waits for the next attempt: true when it is due, false when the schedule has ended (or the
   * deadline would pass). Rejects with LockAbortedError when `signal` aborts.
   */
  async pause(signal: AbortSignal | undefined, stats: () => ReadonlyArray<Promise<ExecutionStats>>): Promise<boolean> {
    const s = this.settings;
    if (this.waiters !== undefined && this.#tried) this.#ticket ??= this.waiters.join(this.resources, this.mode);
    if (this.#ticket !== undefined) {
      this.#ticket.token = this.#token;
      this.#ticket.terms = this.terms;
      this.#ticket.unreachable = this.#unreachable;
    }
    for (;;) {
      const now = performance.now();
      if (now >= this.#slotEnd) {
        const wait = retryWait(s.retryDelay, s.retryJitter);
        if (isAborted(signal) || !mayRetry(Math.max(1, this.#made), s.retryCount) || now + wait >= this.deadline) return !this.#tried && !isAborted(signal);
        this.#slotEnd = now + wait;
        publishAcquireRetry(this.resources, this.#made);
      }
      const ticket = this.#ticket;
      if (ticket === undefined) {
        await sleep(this.#slotEnd - now, signal, stats);
      } else if (this.#errored) {
        // Its place in the local queue is kept; a handover from a holder of this process still reaches it.
        await ticket.sleep(this.#slotEnd, signal, stats, false);
        if (ticket.handed !== undefined) return true;
      } else {
        // After a split (a schedule's attempt raced other processes' woken heads) the quorum is
        // read again rather than the gate alone, which may hold this call's own undone grant.
        ticket.gated = this.#splits === 0 && this.mode === 'queue';
        ticket.gate = -1;
        this.#woken = await ticket.sleep(this.#slotEnd, signal, stats);
        if (ticket.handed !== undefined) return true;
        if (this.#woken) {
          if (this.#splits > 0) await sleep(Math.random() * kSplitBackoffMs * 2 ** (this.#splits - 1), signal, stats);
          return true;
        }
      }
      // The slot ran out (a timer may ring a little before performance.now() says it is due: the
      // slot is over all the same, or a quick refusal would get a free attempt in its remainder).
      this.#slotEnd = -Infinity;
      if (ticket === undefined || ticket.head) return true;
      // Behind the head: its attempts stood in for this call's.
      this.#made++;
    }
  }

  /** A lock a holder of this process handed to this call while it slept (once), or undefined. */
  handed(): Attempt | Passed | undefined {
    const ticket = this.#ticket;
    const attempt = ticket?.handed;
    if (attempt === undefined) return undefined;
    ticket!.handed = undefined;
    return attempt;
  }

  /** When the chain of handovers that handed this call its lock began (src/lifecycle/handover.ts). */
  get chain(): number {
    return this.#ticket?.chain ?? 0;
  }

  /** The call is over (won, failed or aborted): the next in its queue is head. */
  leave(): void {
    this.#ticket?.leave();
    this.#ticket = undefined;
  }
}
