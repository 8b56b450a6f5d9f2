/**
 * A binary min-heap on a numeric key read through `keyOf`: the renewal scheduler's one timer runs
 * over one of these instead of a timer per lock. (Attempt deadlines do not use it: each master scans
 * its unanswered calls, see unanswered.ts, so a decided attempt is not kept alive until its budget.)
 */
export class Heap<T> {
  readonly #items: T[] = [];
  readonly #keyOf: (item: T) => number;

  constructor(keyOf: (item: T) => number) {
    this.#keyOf = keyOf;
  }

  get size(): number {
    return this.#items.length;
  }

  peek(): T | undefined {
    return this.#items[0];
  }

  push(item: T): void {
    const items = this.#items;
    const key = this.#keyOf(item);
    let i = items.push(item) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.#keyOf(items[parent]!) <= key) break;
      items[i] = items[parent]!;
      i = parent;
    }
    items[i] = item;
  }

  pop(): T | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (items.length === 0 || last === undefined) return top;
    const key = this.#keyOf(last);
    const n = items.length;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const child = r < n && this.#keyOf(items[r]!) < this.#keyOf(items[l]!) ? r : l;
      if (this.#keyOf(items[child]!) >= key) break;
      items[i] = items[child]!;
      i = child;
    }
    items[i] = last;
    return top;
  }

  /** Removes and returns everything, in no particular order. */
  drain(): T[] {
    return this.#items.splice(0);
  }
}
