/** What the flusher runs: a master's coalescer with operations waiting. */
export interface Flushable {
  flush(): void;
}

/**
 * One scheduler for the flushes of every master of a MasterSet. An operation goes to every master
 * at once, so each tick has up to N coalescers to flush: one microtask (or one setImmediate) runs
 * them all, where each scheduling its own cost N queue entries per operation.
 *
 * `soon`: flushed in a microtask, so a lone lock pays no extra event-loop turn. `later`: flushed in
 * setImmediate, which gathers every operation issued by the replies of this I/O phase (the
 * continuations of many locks) into one call per master.
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

/**
 * The coalescers due at one moment, in a list kept for reuse: its slots are overwritten, never
 * truncated (setting an array's length goes through V8's runtime, a cost per tick).
 */
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
