import type { Attempt } from '../engine/attempt.js';
import type { ExecutionStats, NodeOutcome } from '../errors.js';
import type { MasterSet } from '../engine/masters.js';

/** What release() found: node-redlock's `attempts`, plus per master whether it still held the lock. */
export class ReleaseResult {
  /** True when a quorum said the lock was no longer held: it had expired or been lost before release. */
  readonly expired: boolean;
  /** The lock was passed, keys and all, to a local waiter (src/waiting/handover.ts): nothing was sent. */
  readonly passedOn: boolean;
  readonly #masters: MasterSet;
  /** The last try: the others' answers are carried into it (MasterSet.retry); undefined when passed on. */
  readonly #attempt: Attempt | undefined;
  /** Every try, when there was more than one. */
  readonly #tries: readonly Attempt[] | undefined;

  /** @internal */
  constructor(masters: MasterSet, attempt: Attempt | undefined, tries?: readonly Attempt[]) {
    this.expired = attempt !== undefined && !attempt.won;
    this.passedOn = attempt === undefined;
    this.#masters = masters;
    this.#attempt = attempt;
    this.#tries = tries;
  }

  /** Masters that confirmed so far the keys were ours and are deleted; `await result.complete()` for the final count. */
  get released(): number {
    return this.#attempt?.votesFor ?? 0;
  }

  /** Every master's part so far (see `released`). */
  get nodes(): readonly NodeOutcome[] {
    return this.#attempt === undefined ? [] : this.#masters.outcomes(this.#attempt);
  }

  /** Resolves once every master has answered or its time budget ran out. */
  async complete(): Promise<this> {
    await this.#attempt?.whenComplete();
    return this;
  }

  /** node-redlock's per-attempt stats: one per try (a release is tried again only when no quorum answered). */
  get attempts(): ReadonlyArray<Promise<ExecutionStats>> {
    return this.#attempt === undefined ? [] : this.#masters.stats(this.#tries ?? [this.#attempt]);
  }
}
