import type { OpCode } from '../protocol/opcodes.js';
import { Attempt, PENDING } from './attempt.js';
import { readSettled } from './quorum.js';

/** What an answer says, as a string masters agree on (e.g. the token a record names), or undefined: it names nothing. */
export type Ballot = (answer: unknown) => string | undefined;

/**
 * A read of the batch script's (src/protocol/election-ops.ts) sent through every master's pipeline like any
 * operation; without a ballot it waits for every master, with one it is decided once the answers settle it.
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
