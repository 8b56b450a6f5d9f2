import { PENDING, TIMEOUT } from './attempt.js';
import type { Batch } from './coalescer.js';
import type { Deadlines, Expiring } from './deadlines.js';

/**
 * One master's calls not yet answered (sent, held behind a script reload, or waiting to be
 * replayed), the scan that enforces their attempts' deadlines, and what that scan learns: whether
 * the master is stalled.
 *
 * The per-attempt deadlines are enforced by scanning these batches, so a decided attempt is
 * referenced by nothing once its replies are in: keeping every attempt in a deadline heap until its
 * budget ran out doubled the client's cost per cycle, most of it in the garbage collector.
 */
export class Unanswered implements Expiring {
  readonly #index: number;
  readonly #deadlines: Deadlines;
  readonly #open = new Set<Batch>();
  /**
   * A call of this master went unanswered past its budget, and no call has been answered in time
   * since: attempts do not wait for its vote to find a quorum impossible (Attempt.discount).
   */
  stalled = false;

  constructor(index: number, deadlines: Deadlines) {
    this.#index = index;
    this.#deadlines = deadlines;
  }

  /** Some call sent here still waits for an answer within its budget (one past it was timed out: not waited for). */
  get waiting(): boolean {
    for (const batch of this.#open) if (batch.deadline !== Infinity) return true;
    return false;
  }

  add(batch: Batch): void {
    this.#open.add(batch);
    this.#deadlines.watch(batch.deadline);
  }

  /** The master answered `batch`: forget it; an answer some operation still waited for ends a stall. */
  answered(batch: Batch): void {
    this.#open.delete(batch);
    if (!this.stalled) return;
    for (const op of batch.ops) {
      if (op.votes[this.#index] === PENDING) {
        this.stalled = false;
        return;
      }
    }
  }

  /** The batch failed (its operations are settled with the error): forget it. */
  failed(batch: Batch): void {
    this.#open.delete(batch);
  }

  /**
   * Expires every operation of an unanswered batch whose attempt's budget ran out by `now`; returns
   * the earliest deadline still to watch (Infinity when none).
   */
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
        if (vote === TIMEOUT) this.stalled = true;
        if (op.pending === 0 || vote !== PENDING) continue;
        if (op.deadline <= now) {
          op.expire();
          this.stalled = true;
        }
        else if (op.deadline < later) later = op.deadline;
      }
      batch.deadline = later;
      if (later < next) next = later;
    }
    return next;
  }
}
