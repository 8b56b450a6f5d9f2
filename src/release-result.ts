import { FOR, type Attempt } from './attempt.js';
import type { ExecutionStats, NodeOutcome } from './errors.js';
import type { Node } from './node.js';
import { outcomesOf } from './outcomes.js';
import type { Redlock } from './redlock.js';

/** What release() found: node-redlock's `attempts`, plus per master whether it still held the lock. */
export class ReleaseResult {
  /** True when a quorum said the lock was no longer held: it had expired or been lost before release. */
  readonly expired: boolean;
  readonly #redlock: Redlock;
  readonly #nodes: readonly Node[];
  readonly #attempt: Attempt;

  /** @internal */
  constructor(redlock: Redlock, nodes: readonly Node[], attempt: Attempt) {
    this.expired = !attempt.won;
    this.#redlock = redlock;
    this.#nodes = nodes;
    this.#attempt = attempt;
  }

  /**
   * Masters that have confirmed so far that the lock's keys were ours and are deleted. release()
   * resolves at the quorum, so a slow minority may still answer: `await result.complete()` first
   * for the final count.
   */
  get released(): number {
    let released = 0;
    for (const vote of this.#attempt.votes) if (vote === FOR) released++;
    return released;
  }

  /** Every master's part so far (see `released`). */
  get nodes(): readonly NodeOutcome[] {
    return outcomesOf(this.#attempt, this.#nodes);
  }

  /** Resolves once every master has answered or its time budget ran out. */
  async complete(): Promise<this> {
    await this.#attempt.whenComplete();
    return this;
  }

  /** node-redlock's per-attempt stats (one attempt: release is not retried; its keys expire anyway). */
  get attempts(): ReadonlyArray<Promise<ExecutionStats>> {
    return this.#redlock.executionStats([this.#attempt]);
  }
}
