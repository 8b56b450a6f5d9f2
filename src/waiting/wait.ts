import { FAILED, TIMEOUT, type Attempt } from '../engine/attempt.js';
import { publishAcquireRetry } from '../engine/channels.js';
import type { MasterSet } from '../engine/masters.js';
import { lostToErrors } from '../engine/quorum.js';
import type { ExecutionStats } from '../errors.js';
import { bypassOf, sendGated, turnId, turnsKey } from './gate.js';
import { backoff, isAborted, mayRetry, retryWait, sleep, type ScheduleSettings } from '../engine/schedule.js';
import type { HandoverTerms, Passed, Ticket } from './ticket.js';
import { inLine, type Waiters, type Waiting, type WaitMode } from './waiters.js';

/** The first split's backoff window, ms: about a local round trip to the masters. */
const kSplitBackoffMs = 1;
const kMaxSplitDoublings = 4;

type Stats = () => ReadonlyArray<Promise<ExecutionStats>>;

/**
 * One acquire call's waiting, the only thing the acquire loop talks to about it: node-redlock's retry schedule,
 * which a wake-up brings forward without using a slot. A call behind its process's head makes no attempt of its
 * own (docs/decisions/0012, "wait.ts"). Made when the call first has to wait.
 */
export class Wait {
  /** Attempts made or stood in for, as node-redlock counts them against retryCount. */
  #made = 0;
  #slotEnd = -Infinity;
  #woken = false;
  #tried = false;
  #ticket: Ticket | undefined;
  #token: string | undefined;
  /** Consecutive attempts lost to a split vote (some masters said yes, no quorum did). */
  #splits = 0;
  /**
   * The last attempt was lost to errors or silence, not refused: the next sleep takes a full slot and hears no
   * wake-up (a READONLY master's watch read the key free and woke the call thousands of times a second).
   */
  #errored = false;
  /** Per master, whether it failed or timed out in the last attempt: its reads say nothing of whether the lock can be had there. */
  #unreachable: boolean[] | undefined;
  /** The master the last attempt was gated at, or -1. */
  #gatedAt = -1;

  /** The keys it sleeps on. */
  readonly resources: readonly string[];
  /**
   * `line` behind this process's other callers (`turn`: from arrival, gate first), or alone where many may hold:
   * behind one head, a process took its permits one at a time.
   */
  readonly mode: WaitMode;
  /** In turn: the first in line's grace at the gate, ms. */
  readonly #graceMs: number | undefined;

  constructor(
    readonly waiters: Waiters | undefined,
    how: Waiting,
    readonly settings: ScheduleSettings,
    readonly deadline: number,
    /** What a lock handed to this call must be (src/waiting/handover.ts); plain mutexes only. */
    readonly terms: HandoverTerms | undefined,
    /** False for a wait that begins after the call's first attempt: it was not a newcomer to the line. */
    arriving: boolean,
  ) {
    this.resources = how.waitKeys;
    this.mode = how.waiting;
    this.#graceMs = how.graceMs;
    if (arriving && Wait.early(waiters, how, settings)) this.#ticket = waiters!.join(this.resources);
  }

  /** Whether a call joins the line before its first attempt: in turn always, else behind calls already waiting here. */
  static early(waiters: Waiters | undefined, how: Waiting, settings: ScheduleSettings): boolean {
    return Wait.#joins(waiters, how, settings) && (how.waiting === 'turn' || waiters!.inLine(how.waitKeys));
  }

  /** Whether a newcomer waits behind this process's callers for the same resources instead of racing them. */
  static behind(waiters: Waiters | undefined, how: Waiting, settings: ScheduleSettings): boolean {
    return Wait.#joins(waiters, how, settings) && waiters!.inLine(how.waitKeys);
  }

  static #joins(waiters: Waiters | undefined, how: Waiting, settings: ScheduleSettings): boolean {
    return waiters !== undefined && inLine(how.waiting) && settings.retryCount !== 0;
  }

  /** Whether the call must wait for its turn in line before its first attempt. */
  get queued(): boolean {
    return this.#ticket !== undefined && !this.#ticket.head;
  }

  /** A lock a holder of this process handed to this call while it slept (once), or undefined. */
  handed(): Attempt | Passed | undefined {
    return this.#ticket?.takeHanded();
  }

  /**
   * The next attempt of a mutex a release woke, sent to its gate first (src/waiting/gate.ts), or undefined. Only
   * woken attempts are gated, so a stale gate costs at most one slot.
   */
  send(masters: MasterSet, keys: readonly string[], ttlArg: string, budget: number): Attempt | undefined {
    const ticket = this.#ticket;
    // A call in turn goes to its gate every time (the schedule's attempts too); others when woken.
    const gate = ticket === undefined || this.terms === undefined ? -1
      : this.mode === 'turn' ? this.waiters!.gate(ticket.keys)
        : this.#woken ? ticket.gate : -1;
    this.#gatedAt = gate;
    if (gate === -1) return undefined;
    if (ticket!.turn === undefined)
      ticket!.takeTurn(turnsKey(masters.names, keys[0]!, masters.clustered), turnId(), bypassOf(this.#graceMs));
    return sendGated(masters, gate, keys, ttlArg, budget, ticket!.turnsKey!, ticket!.turn!, this.#graceMs);
  }

  /**
   * An attempt was decided: it counts as the schedule says, and at its gate it joined the turns or is in them. Lost to
   * errors, it uses a slot and waits a full delay; split, it doubles a random pause (docs/decisions/0012, "wait.ts").
   */
  decided(attempt: Attempt): void {
    const woken = this.#woken;
    this.#tried = true;
    this.#token = attempt.token;
    this.#woken = false;
    if (!woken) this.#made++;
    this.#ticket?.attempted(attempt, this.#gatedAt);
    this.#gatedAt = -1;
    if (attempt.won) return;
    const split = attempt.votesFor > 0 || attempt.votesStalled > 0;
    this.#splits = split ? Math.min(this.#splits + 1, kMaxSplitDoublings) : 0;
    this.#unreachable = attempt.votesUnreachable === 0 ? undefined : attempt.votes.map((vote) => vote === FAILED || vote === TIMEOUT);
    this.#errored = lostToErrors(attempt);
    if (!this.#errored) return;
    if (woken) this.#made++;
    this.#slotEnd = -Infinity;
  }

  /** Waits for the next attempt: true when due, false when the schedule ended; rejects with LockAbortedError on `signal`. */
  async pause(signal: AbortSignal | undefined, stats: Stats): Promise<boolean> {
    const s = this.settings;
    if (this.waiters !== undefined && this.#tried) this.#ticket ??= this.waiters.join(this.resources, this.mode);
    this.#ticket?.brief(this.#token, this.#unreachable, this.terms);
    for (;;) {
      const now = performance.now();
      if (now >= this.#slotEnd) {
        const wait = retryWait(s.retryDelay, s.retryJitter);
        if (isAborted(signal) || !mayRetry(Math.max(1, this.#made), s.retryCount) || now + wait >= this.deadline)
          return !this.#tried && !isAborted(signal);
        this.#slotEnd = now + wait;
        publishAcquireRetry(this.resources, this.#made);
      }
      const ticket = this.#ticket;
      if (ticket === undefined) {
        await sleep(this.#slotEnd - now, signal, stats);
      } else if (this.#errored) {
        // Its place in line is kept; a handover from a holder of this process still reaches it.
        await ticket.sleep(this.#slotEnd, signal, stats, false);
        if (ticket.handed !== undefined) return true;
      } else {
        // After a split (a schedule's attempt raced other processes' woken heads) the quorum is
        // read again rather than the gate alone, which may hold this call's own undone grant.
        ticket.gateNext(this.#splits === 0 && inLine(this.mode));
        this.#woken = await ticket.sleep(this.#slotEnd, signal, stats);
        if (ticket.handed !== undefined) return true;
        if (this.#woken) {
          if (this.#splits > 0) await sleep(backoff(kSplitBackoffMs, this.#splits), signal, stats);
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

  /** When the chain of handovers that handed this call its lock began (src/waiting/handover.ts). */
  get chain(): number {
    return this.#ticket?.chain ?? 0;
  }

  /** The call is over (won, failed or aborted): the next in its line is head. */
  leave(): void {
    this.#ticket?.leave();
    this.#ticket = undefined;
  }
}
