/**
 * A binary min-heap on `keyOf`, for the renewal scheduler's one timer. `placed` hears each item's index as it moves
 * (−1 when it leaves), so a released lock leaves in O(log n) instead of staying reachable until due.
 */
export class Heap<T> {
  readonly #items: T[] = [];
  readonly #keyOf: (item: T) => number;
  readonly #placed: ((item: T, index: number) => void) | undefined;

  constructor(keyOf: (item: T) => number, placed?: (item: T, index: number) => void) {
    this.#keyOf = keyOf;
    this.#placed = placed;
  }

  get size(): number {
    return this.#items.length;
  }

  peek(): T | undefined {
    return this.#items[0];
  }

  push(item: T): void {
    this.#up(this.#items.push(item) - 1, item);
  }

  pop(): T | undefined {
    return this.#items.length === 0 ? undefined : this.remove(0);
  }

  /** Removes the item at `index` (as last told to `placed`) and returns it. */
  remove(index: number): T | undefined {
    const items = this.#items;
    if (index < 0 || index >= items.length) return undefined;
    const item = items[index]!;
    const last = items.pop()!;
    this.#placed?.(item, -1);
    if (index < items.length) {
      // The last item fills the hole, then moves whichever way its key says.
      if (index > 0 && this.#keyOf(last) < this.#keyOf(items[(index - 1) >> 1]!)) this.#up(index, last);
      else this.#down(index, last);
    }
    return item;
  }

  /** Removes and returns everything, in no particular order. */
  drain(): T[] {
    const items = this.#items.splice(0);
    if (this.#placed !== undefined) for (const item of items) this.#placed(item, -1);
    return items;
  }

  #up(from: number, item: T): void {
    const items = this.#items;
    const key = this.#keyOf(item);
    let i = from;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.#keyOf(items[parent]!) <= key) break;
      this.#put(i, items[parent]!);
      i = parent;
    }
    this.#put(i, item);
  }

  #down(from: number, item: T): void {
    const items = this.#items;
    const key = this.#keyOf(item);
    const n = items.length;
    let i = from;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const child = r < n && this.#keyOf(items[r]!) < this.#keyOf(items[l]!) ? r : l;
      if (this.#keyOf(items[child]!) >= key) break;
      this.#put(i, items[child]!);
      i = child;
    }
    this.#put(i, item);
  }

  #put(index: number, item: T): void {
    this.#items[index] = item;
    this.#placed?.(item, index);
  }
}
