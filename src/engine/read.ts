import type { OpCode } from '../protocol/opcodes.js';
import { Attempt, PENDING } from './attempt.js';
import { readSettled } from './quorum.js';

/** What an answer says, as a string masters agree on (e.g. the token a record names), or undefined: it names nothing. */
export type Ballot = (answer: unknown) => string | undefined;

/**
 * A read of the batch script's (src/protocol/election-ops.ts: an election's record and history, a
 * refused acquisition's keys) sent to every master through its pipeline like any operation, so it
 * gets what every operation gets: the key prefix, coalescing, the budget, the stall accounting and
 * the not-ready fast fail, error classification and node-call diagnostics. A master's data is a
 * vote for; errors and timeouts count as for any attempt. Without a ballot it waits for every
 * master (up to its budget) and is won when a quorum answered; with one, it is decided as soon as
 * the answers settle it (quorum.ts readSettled), and `won` then says a quorum answered or agreed.
 */
export class Read extends Attempt {
  /** Per master its data, undefined where it did not answer. */
  readonly answers: unknown[];
  readonly #ballot: Ballot | undefined;
  readonly #agree = new Map<string, number>();
  #most = 0;

  constructor(opcode: OpCode, keys: readonly string[], quorum: number, budget: number, n: number, ballot: Ballot | undefined) {
    super(opcode, keys, '', '0', quorum, performance.now(), budget, true, n);
    this.answers = new Array<unknown>(n).fill(undefined);
    this.#ballot = ballot;
  }

  override answer(node: number, value: unknown): boolean {
    if (this.votes[node] !== PENDING) return true;
    this.answers[node] = value;
    const said = this.#ballot?.(value);
    if (said !== undefined) {
      const agree = (this.#agree.get(said) ?? 0) + 1;
      this.#agree.set(said, agree);
      if (agree > this.#most) this.#most = agree;
    }
    this.settle(node, 1);
    // Settled early: the masters still out are not waited for, and their late data is not read.
    if (this.#ballot !== undefined && this.pending > 0 && readSettled(this, this.#most)) this.expire();
    return true;
  }
}
