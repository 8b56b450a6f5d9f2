import { isRelease, voteOf, VOTE_BELOW_TARGET, VOTE_ONE, VOTE_POSITIVE, VOTE_TARGET, type OpArgs,
  type OpCode } from '../protocol/opcodes.js';
import { decide, decideComplete, decideRelease, UNDECIDED, WON, type Decision, type Tally } from './quorum.js';

/** A master's vote on an attempt: numbers, so that an attempt's votes are one small-integer array. */
export const PENDING = 0, FOR = 1, AGAINST = 2, FAILED = 3, TIMEOUT = 4;
export type Vote = typeof PENDING | typeof FOR | typeof AGAINST | typeof FAILED | typeof TIMEOUT;

/** All-PENDING votes, sliced per attempt: exactly n long, where n pushes onto [] reserve 17 slots. */
const PENDING_VOTES: Vote[][] = [];

/** How an Attempt tells its keeper that the last master answered or timed out. */
export const kAttemptCompleted = Symbol('pipelock.attemptCompleted');

/** What is told when the last master of an attempt answered or timed out (a held lock's stats). */
export interface CompletionKeeper {
  [kAttemptCompleted](): void;
}

/**
 * One operation (acquire, extend or release) of one lock, sent to every master once. It is the
 * coalescer's unit of work and its own quorum tally: each master settles its slot from its own
 * reply, so no closure is made per master per call.
 */
export class Attempt implements OpArgs, Tally {
  /** Per master: PENDING, FOR, AGAINST, FAILED or TIMEOUT. A plain array: for five masters it is cheaper to make than a typed one. */
  readonly votes: Vote[];
  /** Per master, only where a reply counted neither none nor all of the keys (a partial release). */
  counts: number[] | undefined;
  errors: (Error | undefined)[] | undefined;
  decision: Decision = UNDECIDED;
  /** Masters that have not answered or timed out. */
  pending: number;
  /**
   * When its commands went out (until then, when it was made), and that plus its budget: a burst can keep the
   * client busy between making and sending. Validity counts from `start` too: read before the write, it is safe.
   */
  start: number;
  deadline: number;
  #sent = false;
  /** Told of the decision instead of (or as well as) `done`: no promise or closure per renewal for the scheduler. */
  onDecided: ((attempt: Attempt) => void) | undefined;
  /** What `onDecided` needs to find its owner (the renewal scheduler's entry); for a won acquisition, its Lock (a KeysHolder). */
  context: unknown;
  /** The lock that won with this attempt while a master had yet to answer: it keeps the attempt for node-redlock's stats. */
  keeper: CompletionKeeper | undefined;
  /** Its words when it is a call's only script operation or a native command, shared by every master (src/engine/coalescer.ts). */
  alone: readonly string[] | undefined = undefined;
  /** F and I: the largest value among the votes for; X: the largest previous counter seen. */
  value = 0;
  /** X: the fencing token the counters are raised to; a master votes for if it was below. P: the slot asked for, + 1. */
  target = 0;
  /** The script's extra argument (P: the slot; W: the waiting marker's ttl). */
  extra = '';
  #votesFor = 0;
  #votesAgainst = 0;
  /** FAILED or TIMEOUT. */
  #votesUnreachable = 0;
  /** Masters whose vote is still awaited but no longer waited for (stalled); see `discount`. */
  #discounted: boolean[] | undefined;
  #discounts = 0;
  #promise: Promise<this> | undefined;
  /** Typed on Attempt, not `this`: a subclass (src/waiting/gate.ts) stays an Attempt to the coalescer. */
  #resolve: ((attempt: Attempt) => void) | undefined;
  #onComplete: (() => void)[] | undefined;

  constructor(
    readonly opcode: OpCode,
    readonly keys: readonly string[],
    readonly token: string,
    readonly ttlArg: string,
    readonly quorum: number,
    /** performance.now() when it was made; reset by `sent()`. */
    start: number,
    readonly budget: number,
    /** Wait for every master (or the deadline) instead of deciding at the quorum (cleanup of a failed attempt). */
    readonly needAll: boolean,
    n: number,
  ) {
    let pending = PENDING_VOTES[n];
    if (pending === undefined) {
      pending = [];
      for (let i = 0; i < n; i++) pending.push(PENDING);
      PENDING_VOTES[n] = pending;
    }
    this.votes = pending.slice();
    this.pending = n;
    this.start = start;
    this.deadline = start + budget;
  }

  get size(): number {
    return this.votes.length;
  }

  get votesFor(): number {
    return this.#votesFor;
  }

  get votesAgainst(): number {
    return this.#votesAgainst;
  }

  get votesUnreachable(): number {
    return this.#votesUnreachable;
  }

  get votesStalled(): number {
    return this.#discounts;
  }

  /** Not yet sent by any master's coalescer (its clock has not started). */
  get unsent(): boolean {
    return !this.#sent;
  }

  /** The coalescer is sending it now: its clock (budget and validity) starts here, once. */
  sent(now: number): void {
    if (this.#sent) return;
    this.#sent = true;
    this.start = now;
    this.deadline = now + this.budget;
  }

  /** Resolves with this attempt once it is decided. */
  get done(): Promise<this> {
    if (this.#promise === undefined) {
      this.#promise = this.decision !== UNDECIDED
        ? Promise.resolve(this)
        : new Promise<this>((resolve) => {
          this.#resolve = resolve as (attempt: Attempt) => void;
        });
    }
    return this.#promise;
  }

  get won(): boolean {
    return this.decision === WON;
  }

  /** A master's reply: the script's integer for this operation, or why there is none. */
  settle(node: number, reply: number | Error): void {
    // A reply after the budget ran out changes nothing: the attempt was decided (and reported)
    // with this master timed out, and a failed attempt's cleanup already covers it.
    if (this.votes[node] !== PENDING) return;
    this.#undiscount(node);
    let vote: Vote;
    if (typeof reply === 'number') {
      vote = this.judge(reply);
      if (reply !== 0 && vote === AGAINST) (this.counts ??= [])[node] = reply;
    } else {
      (this.errors ??= [])[node] = reply;
      vote = FAILED;
    }
    this.votes[node] = vote;
    this.pending--;
    this.#count(vote);
    if (this.pending === 0) this.#completed();
  }

  /** A non-integer answer: a read's data (true), else an unexpected reply (false). */
  answer(_node: number, _value: unknown): boolean {
    return false;
  }

  /** What a master's integer reply means for this operation (src/protocol/opcodes.ts). */
  protected judge(reply: number): Vote {
    switch (voteOf(this.opcode)) {
      case VOTE_POSITIVE:
        if (reply > this.value) this.value = reply;
        return reply > 0 ? FOR : AGAINST;
      case VOTE_BELOW_TARGET:
        if (reply > this.value) this.value = reply;
        return reply < this.target ? FOR : AGAINST;
      case VOTE_TARGET:
        // Any other non-zero reply is a hint (a free slot), kept in `counts` by settle().
        return reply === this.target ? FOR : AGAINST;
      case VOTE_ONE:
        return reply === 1 ? FOR : AGAINST;
      default:
        return reply === this.keys.length ? FOR : AGAINST;
    }
  }

  /** Master `node`'s answer taken from `earlier`, a try of the same operation (MasterSet.retry). */
  carry(node: number, earlier: Attempt): void {
    const vote = earlier.votes[node]!;
    if (this.votes[node] !== PENDING || vote === PENDING) return;
    const count = earlier.counts?.[node];
    if (count !== undefined) (this.counts ??= [])[node] = count;
    this.votes[node] = vote;
    this.pending--;
    this.#count(vote);
    if (this.pending === 0) this.#completed();
  }

  /** Marks a master that will not be asked (release skips masters that never took the lock). */
  skip(node: number): void {
    this.votes[node] = AGAINST;
    this.pending--;
    this.#count(AGAINST);
    if (this.pending === 0) this.#completed();
  }

  /**
   * The master is stalled: its pending vote still counts if it comes in time, but the attempt is lost as soon as
   * the others make a quorum impossible (a hot lock went untaken for seconds otherwise; docs/decisions/0012).
   */
  discount(node: number): void {
    if (this.votes[node] !== PENDING || this.#discounted?.[node] === true) return;
    (this.#discounted ??= [])[node] = true;
    this.#discounts++;
    this.#check();
  }

  #undiscount(node: number): void {
    if (this.#discounted?.[node] !== true) return;
    this.#discounted[node] = false;
    this.#discounts--;
  }

  /** The per-node budget ran out: every silent master counts as failed from now on. */
  expire(): void {
    const votes = this.votes;
    for (let i = 0; i < votes.length; i++) this.#timeOut(i);
    if (this.pending === 0) this.#completed();
  }

  /** Master `node`'s own budget ran out (src/engine/unanswered.ts): one draining a backlog is not timed out with a silent one. */
  timeOut(node: number): void {
    if (this.#timeOut(node) && this.pending === 0) this.#completed();
  }

  /** Answers whether `node`'s vote was still pending (and is TIMEOUT now). */
  #timeOut(node: number): boolean {
    if (this.votes[node] !== PENDING) return false;
    this.#undiscount(node);
    this.votes[node] = TIMEOUT;
    this.pending--;
    this.#count(TIMEOUT);
    return true;
  }

  /** Resolves when every master has answered or timed out (for node-redlock's stats promises). */
  whenComplete(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => (this.#onComplete ??= []).push(resolve));
  }

  #count(vote: Vote): void {
    if (vote === FOR) this.#votesFor++;
    else if (vote === AGAINST) this.#votesAgainst++;
    else this.#votesUnreachable++;
    this.#check();
  }

  #check(): void {
    if (this.decision !== UNDECIDED || this.needAll) return;
    const decision = isRelease(this.opcode) ? decideRelease(this) : decide(this);
    if (decision !== UNDECIDED) this.#decide(decision);
  }

  #decide(decision: Decision): void {
    this.decision = decision;
    // Settled from here on: `done` answers with a resolved promise, and the resolver and its promise
    // are not kept for as long as a held lock keeps its attempts (node-redlock's lock.attempts).
    const resolve = this.#resolve;
    this.#resolve = undefined;
    this.#promise = undefined;
    resolve?.(this);
    this.onDecided?.(this);
  }

  #completed(): void {
    if (this.decision === UNDECIDED) this.#decide(decideComplete(this));
    const waiters = this.#onComplete;
    if (waiters !== undefined) {
      this.#onComplete = undefined;
      for (const resolve of waiters) resolve();
    }
    const keeper = this.keeper;
    if (keeper !== undefined) {
      this.keeper = undefined;
      keeper[kAttemptCompleted]();
    }
  }
}
