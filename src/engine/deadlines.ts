import { Alarm } from '../util/alarm.js';
import type { Batch } from './coalescer.js';

/** Whatever holds unanswered calls with deadlines (each master). */
export interface Expiring {
  /** Times out what is due by `now`; answers the earliest deadline still to watch (Infinity: none). */
  expire(now: number): number;
}

/**
 * One timer for the per-attempt time budgets of every master's unanswered calls. Masters report the
 * earliest deadline of each call they send; when the timer fires, each master's `expire(now)` times
 * out what is due and answers its next deadline. With a constant budget, later calls have later
 * deadlines, so the timer is re-armed once per firing rather than once per call.
 */
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
   * Stamps `batch.written` in the check phase after it was handed to its master: @redis/client
   * writes what it was handed in a setImmediate, queued before this one. A budget counted from the
   * flush alone ran out, in a burst, while the client itself was still busy before that write
   * (issue 47); Unanswered counts it from the later of the two.
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
