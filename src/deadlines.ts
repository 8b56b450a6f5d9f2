/** Something with a monotonic deadline that can be told it has passed. */
export interface Expirable {
  readonly deadline: number;
  readonly pending: number;
  expire(): void;
}

/**
 * One timer for every in-flight attempt instead of one each: a binary min-heap on the deadline.
 * Attempts that complete early stay in the heap and are dropped when they reach the top, which
 * is cheaper than removing them (most attempts complete long before their budget).
 */
export class Deadlines {
  readonly #heap: Expirable[] = [];
  #timer: NodeJS.Timeout | undefined;
  #armedFor = Infinity;

  get size(): number {
    return this.#heap.length;
  }

  push(item: Expirable): void {
    const heap = this.#heap;
    let i = heap.push(item) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]!.deadline <= item.deadline) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = item;
    if (item.deadline < this.#armedFor) this.#arm(item.deadline);
  }

  /** Expires everything due by `now` (exposed for tests; the timer calls it). */
  run(now: number): void {
    const heap = this.#heap;
    while (heap.length > 0) {
      const top = heap[0]!;
      if (top.pending !== 0 && top.deadline > now) break;
      this.#pop();
      if (top.pending !== 0) top.expire();
    }
  }

  clear(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#armedFor = Infinity;
    for (const item of this.#heap.splice(0)) if (item.pending !== 0) item.expire();
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
    const next = this.#heap[0];
    if (next !== undefined) this.#arm(next.deadline);
  };

  #pop(): void {
    const heap = this.#heap;
    const last = heap.pop()!;
    if (heap.length === 0) return;
    let i = 0;
    const n = heap.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const child = r < n && heap[r]!.deadline < heap[l]!.deadline ? r : l;
      if (heap[child]!.deadline >= last.deadline) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = last;
  }
}
