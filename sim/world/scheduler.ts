/**
 * The world's one event queue: callbacks at virtual instants (ms, fractions kept), run in order of
 * time and then of scheduling. Ours rather than @sinonjs/fake-timers' clock: that clock rounds
 * every delay with parseInt (no fractional ms, so no per-process clock rate) and turns a 0 ms timer
 * set inside a tick into 1 ms, which would add a ms of virtual latency to every setImmediate flush.
 */
export interface Event {
  readonly at: number;
  readonly seq: number;
  fn: (() => void) | undefined;
}

export class Scheduler {
  now = 0;
  #seq = 0;
  readonly #heap: Event[] = [];

  at(at: number, fn: () => void): Event {
    const event: Event = { at: Math.max(at, this.now), seq: this.#seq++, fn };
    const heap = this.#heap;
    let i = heap.push(event) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(event, heap[parent]!)) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = event;
    return event;
  }

  /**
   * Time passes inside running code (a synchronous stretch of work): no callback or promise
   * continuation of any process runs meanwhile, and what was due runs late, in order.
   */
  stallWorld(ms: number): void {
    this.stalls.push([this.now, this.now + ms]);
    this.now += ms;
  }

  /** Every synchronous stall, [from, to): a pause of every process at once. */
  readonly stalls: [number, number][] = [];

  cancel(event: Event): void {
    event.fn = undefined;
  }

  /** The instant of the next live event, or Infinity. */
  peek(): number {
    this.#skipDead();
    return this.#heap[0]?.at ?? Infinity;
  }

  /** Runs the next live event (advancing `now` to it); false when none is left. */
  runNext(): boolean {
    this.#skipDead();
    const event = this.#pop();
    if (event === undefined) return false;
    // A synchronous stall (stallWorld) may have moved the clock past events still queued: they run late.
    this.now = Math.max(this.now, event.at);
    const fn = event.fn!;
    event.fn = undefined;
    fn();
    return true;
  }

  #skipDead(): void {
    while (this.#heap.length > 0 && this.#heap[0]!.fn === undefined) this.#pop();
  }

  #pop(): Event | undefined {
    const heap = this.#heap;
    const top = heap[0];
    const last = heap.pop();
    if (top === undefined || last === undefined || heap.length === 0) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= heap.length) break;
      const r = l + 1;
      const c = r < heap.length && before(heap[r]!, heap[l]!) ? r : l;
      if (!before(heap[c]!, last)) break;
      heap[i] = heap[c]!;
      i = c;
    }
    heap[i] = last;
    return top;
  }
}

function before(a: Event, b: Event): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}
