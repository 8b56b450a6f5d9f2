import { readClockFirst } from '../../util/fresh-signal.js';
import { InvalidArgumentError, QuorumUnreachableError, ResignedError } from '../../errors.js';
import type { Lock } from '../../lifecycle/lock.js';
import { kAsyncDispose } from '../../util/dispose.js';
import type { RedlockAbortSignal } from '../../lifecycle/lock.js';

/** What a term asks of its election: the record writes, and word of a change for observers. */
export interface TermHost {
  readonly name: string;
  /** Owner-checked write of the record (undefined: erase); resolves false when no quorum took it. */
  put(lock: Lock, term: number, value: string | undefined, seq: number): Promise<boolean>;
  /** Something changed: observers of this process read again now. */
  changed(): void;
}

/** One leadership. `term` is a fencing token above every earlier one: check it where you act, as a paused leader may act late. */
export class Term {
  /** Aborts when leadership is lost (LockLostError) or resigned (ResignedError); reading `aborted` checks validity first. */
  readonly signal: RedlockAbortSignal;
  readonly #host: TermHost;
  readonly #lock: Lock;
  readonly #resigned = new AbortController();
  #value: string;
  #seq = 0;
  #resigning: Promise<void> | undefined;

  /** The term: a fencing token, greater than every earlier term of the election. */
  readonly term: number;

  /** @internal From Election.campaign(). */
  constructor(host: TermHost, lock: Lock, term: number, value: string) {
    this.term = term;
    this.#host = host;
    this.#lock = lock;
    this.#value = value;
    // The lease ends where every lock's does: the renewal scheduler aborts the lock's signal at its
    // validity's end, and reading that signal reads the clock (after a pause no timer has run yet).
    const own = lock.signal!;
    this.signal = readClockFirst(AbortSignal.any([own, this.#resigned.signal]), () => own.aborted);
  }

  /** The election's name. */
  get election(): string {
    return this.#host.name;
  }

  /** The value this leader proclaimed last (the campaign's, until proclaim()). */
  get value(): string {
    return this.#value;
  }

  /** Milliseconds of the lease left on the monotonic clock; 0 once lost or resigned. */
  get validity(): number {
    return this.signal.aborted ? 0 : this.#lock.validity;
  }

  /** Changes the value others read without a new election; rejects once leadership is over, or without a quorum. */
  async proclaim(value: string): Promise<void> {
    if (typeof value !== 'string') throw new InvalidArgumentError('value', 'must be a string', value);
    if (this.signal.aborted) throw this.signal.reason;
    const seq = ++this.#seq;
    if (!(await this.#host.put(this.#lock, this.term, value, seq))) {
      throw new QuorumUnreachableError(`could not proclaim a value for ${this.#host.name} (term ${this.term}) on a quorum`);
    }
    this.#value = value;
    this.#host.changed();
  }

  /** Gives up leadership: signal aborts, record and lock go, the next wakes. A second call resolves with the first's outcome. */
  resign(): Promise<void> {
    return (this.#resigning ??= this.#resign());
  }

  async #resign(): Promise<void> {
    const lost = this.signal.aborted;
    this.#resigned.abort(new ResignedError(this.#host.name, this.term));
    try {
      // A lost lease's keys are gone or someone else's: an owner-checked erase and release would do nothing.
      if (lost) return;
      // An erase short of a quorum leaves a record no reader believes once the lock key below is gone.
      await this.#host.put(this.#lock, this.term, undefined, 0);
      await this.#lock.release();
    } finally {
      this.#host.changed();
    }
  }

  /** `await using term = await election.campaign()`: resigns at the end of the scope. */
  [kAsyncDispose](): Promise<void> {
    return this.resign();
  }
}
