import { Alarm } from './alarm.js';

/**
 * One timer for the per-attempt time budgets of every master's unanswered calls. Masters report the
 * earliest deadline of each call they send; when the timer fires, `expire(now)` times out what is
 * due and answers the next deadline to watch. With a constant budget, later calls have later
 * deadlines, so the timer is re-armed once per firing rather than once per call.
 */
export class Deadlines {
  readonly #expire: (now: number) => number;
  readonly #alarm = new Alarm(() => {
    this.run(performance.now());
  });

  constructor(expire: (now: number) => number) {
    this.#expire = expire;
  }

  watch(deadline: number): void {
    this.#alarm.before(deadline);
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
}
