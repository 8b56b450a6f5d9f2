/**
 * One timer for the per-attempt time budgets of every master's unanswered calls. Masters report the
 * earliest deadline of each call they send; when the timer fires, `expire(now)` times out what is
 * due and answers the next deadline to watch. With a constant budget, later calls have later
 * deadlines, so the timer is re-armed once per firing rather than once per call.
 */
export class Deadlines {
  readonly #expire: (now: number) => number;
  #timer: NodeJS.Timeout | undefined;
  #armedFor = Infinity;

  constructor(expire: (now: number) => number) {
    this.#expire = expire;
  }

  watch(deadline: number): void {
    if (deadline < this.#armedFor) this.#arm(deadline);
  }

  /** Expires everything due by `now` (the timer calls it; exposed for tests). */
  run(now: number): void {
    const next = this.#expire(now);
    if (next < this.#armedFor || this.#timer === undefined) {
      this.#armedFor = Infinity;
      if (next !== Infinity) this.#arm(next);
    }
  }

  clear(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#armedFor = Infinity;
    this.#expire(Infinity);
  }

  #arm(deadline: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#armedFor = deadline;
    this.#timer = setTimeout(this.#fire, Math.max(0, Math.ceil(deadline - performance.now())));
    // Pending commands keep the process alive by themselves; this timer must not.
    this.#timer.unref();
  }

  readonly #fire = (): void => {
    this.#timer = undefined;
    this.#armedFor = Infinity;
    this.run(performance.now());
  };
}
