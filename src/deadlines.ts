import { Heap } from './heap.js';

/** Something with a monotonic deadline that can be told it has passed. */
export interface Expirable {
  readonly deadline: number;
  readonly pending: number;
  expire(): void;
}

/**
 * One timer for every in-flight attempt instead of one each. Attempts that complete early stay
 * in the heap and are dropped when they reach the top, which is cheaper than removing them (most
 * attempts complete long before their budget).
 */
export class Deadlines {
  readonly #heap = new Heap<Expirable>((item) => item.deadline);
  #timer: NodeJS.Timeout | undefined;
  #armedFor = Infinity;

  get size(): number {
    return this.#heap.size;
  }

  push(item: Expirable): void {
    this.#heap.push(item);
    if (item.deadline < this.#armedFor) this.#arm(item.deadline);
  }

  /** Expires everything due by `now` (exposed for tests; the timer calls it). */
  run(now: number): void {
    const heap = this.#heap;
    for (let top = heap.peek(); top !== undefined; top = heap.peek()) {
      if (top.pending !== 0 && top.deadline > now) break;
      heap.pop();
      if (top.pending !== 0) top.expire();
    }
  }

  clear(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#armedFor = Infinity;
    for (const item of this.#heap.drain()) if (item.pending !== 0) item.expire();
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
    const next = this.#heap.peek();
    if (next !== undefined) this.#arm(next.deadline);
  };
}
