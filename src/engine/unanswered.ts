import { PENDING, TIMEOUT, type Attempt } from './attempt.js';
import type { Batch } from './coalescer.js';
import type { Deadlines, Expiring } from './deadlines.js';
import { mayWriteOff } from './quorum.js';
import { isRelease } from '../protocol/opcodes.js';
import { NodeStalledError } from '../errors.js';

/**
 * How many masters of one set are stalled now: each master's Unanswered keeps the count. It also
 * tells quit()'s drain when a call leaves (answered, failed or timed out), so the drain waits on a
 * promise instead of looking every few ms.
 */
export class Stalls {
  count = 0;
  #wake: (() => void) | undefined;
  #next: Promise<void> | undefined;
  constructor(
    readonly size: number,
    readonly quorum: number,
  ) {}

  /** The stalled masters are a minority: they may be written off (src/engine/quorum.ts mayWriteOff). */
  get writeOff(): boolean {
    return mayWriteOff(this.count, this.size, this.quorum);
  }

  /** Resolves when the next call of any master leaves. */
  nextLeave(): Promise<void> {
    return (this.#next ??= new Promise((resolve) => { this.#wake = resolve; }));
  }

  left(): void {
    const wake = this.#wake;
    if (wake === undefined) return;
    this.#wake = this.#next = undefined;
    wake();
  }
}

/**
 * One master's unanswered calls, the scan that enforces their deadlines, and whether the master is stalled. A scan,
 * not a deadline heap, so a decided attempt is garbage at once (docs/decisions/0012, "unanswered.ts").
 */
export class Unanswered implements Expiring {
  readonly #index: number;
  readonly #deadlines: Deadlines;
  readonly #stalls: Stalls;
  /** Unordered, each batch knowing its place (Batch.slot): a Set re-hashed at every call of a lone lock. */
  readonly #open: Batch[] = [];
  #stalled = false;
  /** What the operations not sent to this stalled master are settled with: one per stall, made when first needed. */
  #stallError: NodeStalledError | undefined;
  /**
   * The one operation sent to a stalled master that is written off, until its call is answered or
   * fails: its answer in time ends the stall. One at a time, not one per budget, so that a master
   * hung for hours costs one call, not a call per budget.
   */
  #probe: Attempt | undefined;
  /**
   * While stalled, the tokens sent here and not yet answered, counted: their release is still sent behind them, so
   * what they set once the master answers is deleted in order.
   */
  #tokens: Map<string, number> | undefined;
  /**
   * The latest call answered (its Batch.seq, and performance.now() when its reply was read). Replies
   * come in order, so a call behind it could not be answered before then: its budget on this master
   * counts from then if that is later than its send (`#due`).
   */
  #answeredSeq = -1;
  #answeredAt = -Infinity;

  constructor(index: number, deadlines: Deadlines, stalls: Stalls) {
    this.#index = index;
    this.#deadlines = deadlines;
    this.#stalls = stalls;
  }

  /** A call went unanswered past its budget and none answered in time since: attempts stop waiting for its vote. */
  get stalled(): boolean {
    return this.#stalled;
  }

  /** How many tokens the stall keeps now (bounded by the calls out, see #tokens). */
  get tokensKept(): number {
    return this.#tokens?.size ?? 0;
  }

  /** Some call sent here still waits for an answer within its budget (one past it was timed out: not waited for). */
  get waiting(): boolean {
    for (const batch of this.#open) if (batch.deadline !== Infinity) return true;
    return false;
  }

  /**
   * Whether a new operation goes to this stalled master: while the stalled are a minority, only `op` as the probe,
   * and only when none is out, so nothing piles up in this client for the stall's length.
   */
  admits(op: Attempt): boolean {
    if (!this.#stalled || !this.#stalls.writeOff) return true;
    if (isRelease(op.opcode) && this.#tokens?.has(op.token) === true) return true;
    if (this.#probe !== undefined) return false;
    this.#probe = op;
    return true;
  }

  /** This stall's error for master `name`, made and reported once per stall (when its first operation is not sent). */
  stallError(name: string, report: (error: Error) => void): NodeStalledError {
    if (this.#stallError === undefined) {
      this.#stallError = new NodeStalledError(name);
      report(this.#stallError);
    }
    return this.#stallError;
  }

  /** A new connection: the stall (of the one before) ends. */
  reconnected(): void {
    this.#flag(false);
  }

  add(batch: Batch): void {
    batch.slot = this.#open.length;
    this.#open.push(batch);
    this.#deadlines.watch(batch.deadline);
    this.#deadlines.stamp(batch);
    if (this.#tokens !== undefined) count(this.#tokens, batch, 1);
  }

  /** The master answered `batch` (read at `now`): forget it; an answer some operation still waited for ends a stall (answers true). */
  answered(batch: Batch, now = performance.now()): boolean {
    this.#remove(batch);
    if (batch.seq > this.#answeredSeq) {
      this.#answeredSeq = batch.seq;
      this.#answeredAt = now;
    }
    if (!this.#stalled) return false;
    for (const op of batch.ops) {
      if (op.votes[this.#index] === PENDING) {
        this.#flag(false);
        return true;
      }
      // Answered late: still stalled, and the next operation probes again.
      if (op === this.#probe) this.#probe = undefined;
    }
    return false;
  }

  /** The batch failed (its operations are settled with the error): forget it. */
  failed(batch: Batch): void {
    this.#remove(batch);
    if (this.#probe !== undefined && batch.ops.includes(this.#probe)) this.#probe = undefined;
  }

  #remove(batch: Batch): void {
    const slot = batch.slot;
    if (slot < 0) return;
    batch.slot = -1;
    if (this.#tokens !== undefined) count(this.#tokens, batch, -1);
    this.#stalls.left();
    const last = this.#open.pop()!;
    if (last === batch) return;
    this.#open[slot] = last;
    last.slot = slot;
  }

  #flag(stalled: boolean): void {
    if (stalled === this.#stalled) return;
    this.#stalled = stalled;
    this.#probe = undefined;
    this.#stallError = undefined;
    if (stalled) {
      this.#stalls.count++;
      const tokens = (this.#tokens = new Map<string, number>());
      for (const batch of this.#open) count(tokens, batch, 1);
    } else {
      this.#stalls.count--;
      this.#tokens = undefined;
    }
  }

  /**
   * When `op`'s budget here runs out: its attempt's deadline, or a budget after the write or after the previous
   * reply, if later, so a master answering a burst in order is not timed out (issue 47; docs/decisions/0008).
   */
  #due(op: Attempt, batch: Batch): number {
    const written = Math.max(op.deadline, batch.written + op.budget);
    if (this.#answeredSeq >= batch.seq) return written;
    return Math.max(written, this.#answeredAt + op.budget);
  }

  /** Times out every operation here whose budget ran out by `now`; returns the earliest deadline left (Infinity: none). */
  expire(now: number): number {
    const index = this.#index;
    let next = Infinity;
    for (const batch of this.#open) {
      if (batch.deadline > now) {
        if (batch.deadline < next) next = batch.deadline;
        continue;
      }
      let later = Infinity;
      for (const op of batch.ops) {
        const vote = op.votes[index];
        // Timed out by another master's scan of the same attempt: this one was silent too.
        if (vote === TIMEOUT) this.#flag(true);
        if (op.pending === 0 || vote !== PENDING) continue;
        const due = this.#due(op, batch);
        if (due <= now) {
          op.timeOut(index);
          this.#flag(true);
        }
        else if (due < later) later = due;
      }
      batch.deadline = later;
      if (later < next) next = later;
    }
    this.#stalls.left();
    return next;
  }
}

/** Adds `by` to the count of each of `batch`'s tokens, dropping those that reach 0. */
function count(tokens: Map<string, number>, batch: Batch, by: 1 | -1): void {
  for (const op of batch.ops) {
    const n = (tokens.get(op.token) ?? 0) + by;
    if (n > 0) tokens.set(op.token, n);
    else tokens.delete(op.token);
  }
}
