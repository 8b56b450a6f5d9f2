/** What the flusher runs: a master's coalescer with operations waiting. */
export interface Flushable {
  flush(): void;
}

/**
 * One scheduler for the flushes of every master of a MasterSet: one microtask (`soon`, a lone lock pays no extra
 * turn) or one setImmediate (`later`, gathering an I/O phase's continuations) for all N coalescers; no flush is held
 * longer (docs/decisions/0013).
 */
export class Flusher {
  readonly #soon = new Due();
  readonly #later = new Due();

  soon(coalescer: Flushable): void {
    if (this.#soon.add(coalescer)) queueMicrotask(this.#runSoon);
  }

  later(coalescer: Flushable): void {
    if (this.#later.add(coalescer)) setImmediate(this.#runLater);
  }

  readonly #runSoon = (): void => {
    this.#soon.run();
  };

  readonly #runLater = (): void => {
    this.#later.run();
  };
}

/** The coalescers due at one moment, slots overwritten and never truncated (a length write is a V8 runtime call). */
class Due {
  readonly #list: Flushable[] = [];
  #count = 0;

  /** Lists `coalescer`; true when the list was empty (the caller schedules the run). */
  add(coalescer: Flushable): boolean {
    this.#list[this.#count++] = coalescer;
    return this.#count === 1;
  }

  /** Flushes every coalescer listed, those a flush lists meanwhile included. */
  run(): void {
    const list = this.#list;
    try {
      for (let i = 0; i < this.#count; i++) list[i]!.flush();
    } finally {
      this.#count = 0;
    }
  }
}
