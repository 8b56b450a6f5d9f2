import { Alarm } from '../util/alarm.js';
import type { Batch } from './coalescer.js';

/** Whatever holds unanswered calls with deadlines (each master). */
export interface Expiring {
  /** Times out what is due by `now`; answers the earliest deadline still to watch (Infinity: none). */
  expire(now: number): number;
}

/** One timer for every master's call budgets, re-armed once per firing: with a constant budget, later calls end later. */
export class Deadlines {
  readonly #members: readonly Expiring[];
  readonly #alarm = new Alarm(() => {
    // Expire from the check phase, after this loop turn's poll phase has read whatever replies
    // already arrived: a timer that rang late because the client itself was busy (a burst's own
    // work) must not time out masters whose answers are sitting unread in the socket. A silent
    // master is still caught: its reply is not there to read.
    setImmediate(this.#ring);
  });
  readonly #ring = (): void => {
    this.run(performance.now());
  };
  /** Calls handed to their masters since the last stamp; one setImmediate stamps them all. */
  readonly #unwritten: Batch[] = [];
  readonly #stamp = (): void => {
    const now = performance.now();
    const list = this.#unwritten;
    for (let i = 0; i < list.length; i++) list[i]!.written = now;
    list.length = 0;
  };

  /** `members` may still be filled after construction (the masters take this timer when built). */
  constructor(members: readonly Expiring[]) {
    this.#members = members;
  }

  watch(deadline: number): void {
    this.#alarm.before(deadline);
  }

  /**
   * Stamps `batch.written` after @redis/client's own setImmediate wrote it, so a burst's budget does not run out
   * while the client itself is busy (issue 47; docs/decisions/0008).
   */
  stamp(batch: Batch): void {
    if (this.#unwritten.push(batch) === 1) setImmediate(this.#stamp);
  }

  /** Expires everything due by `now` (the timer calls it; exposed for tests). */
  run(now: number): void {
    const next = this.#expire(now);
    if (next !== Infinity) this.#alarm.before(next);
  }

  clear(): void {
    this.#alarm.cancel();
    this.#expire(Infinity);
  }

  #expire(now: number): number {
    let next = Infinity;
    for (const member of this.#members) next = Math.min(next, member.expire(now));
    return next;
  }
}
