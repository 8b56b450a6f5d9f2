import { LockAbortedError, OverloadedError, type ExecutionStats } from '../errors.js';
import { onAbort } from '../util/on-abort.js';
import type { Attempt } from '../engine/attempt.js';
import { answeredByQuorum } from '../engine/quorum.js';
import { RoomWait, type Queued } from './entries.js';
import { AdaptiveLimit } from './limit.js';

export { Queued } from './entries.js';
export { kInitialWindowKeys, kMaxWindowKeys, kMinWindowKeys } from './limit.js';

/**
 * The admission window: at most `limit` keys of acquisition attempts sent and undecided at once, the rest queued
 * here in arrival order, so a burst cannot collapse the masters' queues. Releases queue ahead of acquisitions;
 * extensions, renewals and cleanups skip it. Why and how: docs/decisions/0012, "window.ts".
 */
export class AdmissionWindow {
  readonly #limit = new AdaptiveLimit();
  #inflight = 0;
  readonly #queue: (Queued | undefined)[] = [];
  /**
   * Releases waiting for room: admitted before anything in #queue. Consumed from `#firstHead`, as
   * #queue is from `#head`: taken off the front by splice, every decided release shifted the whole
   * rest, and a burst of 100,000 releases spent most of its time moving this array.
   */
  readonly #first: ({ readonly keys: number; readonly resolve: () => void; readonly reject: (error: Error) => void } | undefined)[] = [];
  #firstHead = 0;
  #head = 0;
  #queuedKeys = 0;
  /** In #pump, which an admitted entry may enter again (by giving its room back at once). */
  #pumping = false;
  /** Pumps asked for while #pumping. */
  #pumpAsked = 0;

  get limit(): number {
    return this.#limit.value;
  }

  get inflight(): number {
    return this.#inflight;
  }

  /** Keys waiting for their turn. */
  get queued(): number {
    return this.#queuedKeys;
  }

  /** Admits at once when there is room and nobody waits (no promise); an attempt larger than the window goes alone. */
  tryEnter(keys: number): boolean {
    if (this.#head !== this.#queue.length || this.#firstHead !== this.#first.length
      || (this.#inflight + keys > this.#limit.value && this.#inflight !== 0)) {
      this.#limit.pressed = true;
      return false;
    }
    this.#inflight += keys;
    this.#limit.admitted();
    return true;
  }

  /**
   * A release's admission: ahead of every queued acquisition (finishing work frees what the queue
   * waits for; behind a queue of 100,000 acquisitions a release came after its lock had expired),
   * but within the limit, so a burst of releases cannot flood the masters either.
   */
  tryEnterFirst(keys: number): boolean {
    if (this.#firstHead !== this.#first.length || (this.#inflight + keys > this.#limit.value && this.#inflight !== 0)) return false;
    this.#inflight += keys;
    this.#limit.admitted();
    return true;
  }

  /** Waits for room ahead of the queued acquisitions; rejects only when the Redlock is closed. */
  enterFirst(keys: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#first.push({ keys, resolve, reject });
    });
  }

  /**
   * A release's run through the window: room ahead of every queued acquisition, then `send` (called
   * once the room is there), and the room given back when the attempt it sent is decided. Rejects,
   * with nothing sent, only when the Redlock is closed.
   */
  async runFirst(keys: number, send: () => Attempt): Promise<Attempt> {
    if (!this.tryEnterFirst(keys)) await this.enterFirst(keys);
    const attempt = send();
    await attempt.done;
    this.decided(attempt, keys, performance.now() - attempt.start);
    return attempt;
  }

  /**
   * Waits for room. Rejects with nothing sent: OverloadedError when `deadline` would pass before this turn or
   * passes while waiting, LockAbortedError when `signal` aborts (with `attempts`, the caller's earlier ones).
   */
  enter(keys: number, deadline: number, signal: AbortSignal | undefined,
    attempts: () => ReadonlyArray<Promise<ExecutionStats>>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue(new RoomWait(keys, deadline, resolve, reject), signal, attempts);
    });
  }

  /** `enter` for an entry that is its own answer: later `waiter.admit()`, or `waiter.refuse()` on `enter`'s terms. */
  queue(waiter: Queued, signal: AbortSignal | undefined, attempts: () => ReadonlyArray<Promise<ExecutionStats>>): void {
    const now = performance.now();
    const wait = this.estimateWait(waiter.keys);
    if (now + wait > waiter.deadline) {
      waiter.refuse(new OverloadedError(this.#queuedKeys, wait, Math.max(0, waiter.deadline - now)));
      return;
    }
    if (signal !== undefined) {
      waiter.forget = onAbort(signal, () => {
        waiter.forget = undefined;
        this.#leaveQueue(waiter);
        waiter.refuse(new LockAbortedError(signal.reason, attempts));
      });
    }
    this.#queue.push(waiter);
    this.#queuedKeys += waiter.keys;
  }

  /** An admitted entry not sent gives its room back (nothing to learn from), and whoever fits is admitted. */
  cancel(keys: number): void {
    this.#inflight -= keys;
    this.#pump();
  }

  /** An admitted attempt was decided after `latency` ms of `budget`: frees its room, adapts the limit, admits who fits. */
  leave(keys: number, latency: number, budget: number): void {
    this.#inflight -= keys;
    this.#limit.decided(keys, latency, budget, this.#inflight);
    this.#pump();
    if (this.#head === this.#queue.length && this.#inflight === 0) this.#limit.pressed = false;
  }

  /**
   * An admitted attempt was decided: its room is freed now or, decided without a quorum of answers, once its masters
   * answered, or the queue would go out in one storm.
   */
  decided(attempt: Attempt, keys: number, latency: number): void {
    if (attempt.pending === 0 || answeredByQuorum(attempt)) {
      this.leave(keys, latency, attempt.budget);
      return;
    }
    void attempt.whenComplete().then(() => {
      this.leave(keys, attempt.budget, attempt.budget);
    });
  }

  /** Estimated ms until an attempt of `keys` keys queued now is sent: the queue ahead drained at limit keys per decision time. */
  estimateWait(keys: number): number {
    if (this.#head === this.#queue.length && this.#inflight + keys <= this.#limit.value) return 0;
    return this.#limit.estimate(this.#queuedKeys, keys);
  }

  #pump(): void {
    // An entry admitted here starts its call at once, and that call may give its room back
    // (cancel), which pumps again: the inner pump only asks this one to go round once more, so a
    // run of such entries does not nest one stack frame deeper each.
    if (this.#pumping) {
      this.#pumpAsked++;
      return;
    }
    this.#pumping = true;
    try {
      let asked: number;
      do {
        asked = this.#pumpAsked;
        this.#admit();
      } while (this.#pumpAsked !== asked);
    } finally {
      this.#pumping = false;
    }
  }

  #admit(): void {
    const first = this.#first;
    while (this.#firstHead < first.length && (this.#inflight + first[this.#firstHead]!.keys <= this.#limit.value || this.#inflight === 0)) {
      const waiter = first[this.#firstHead]!;
      first[this.#firstHead++] = undefined;
      this.#inflight += waiter.keys;
      this.#limit.admitted();
      waiter.resolve();
    }
    this.#firstHead = compact(first, this.#firstHead);
    // Acquisitions wait while releases do.
    if (this.#firstHead !== first.length) return;
    const queue = this.#queue;
    const now = performance.now();
    while (this.#head < queue.length) {
      const waiter = queue[this.#head]!;
      if (waiter.gone) {
        queue[this.#head++] = undefined;
        continue;
      }
      if (this.#inflight + waiter.keys > this.#limit.value && this.#inflight !== 0) break;
      queue[this.#head++] = undefined;
      this.#queuedKeys -= waiter.keys;
      this.#unlisten(waiter);
      if (now > waiter.deadline) {
        // Its deadline passed while it waited: nothing of it was sent, nothing is left anywhere.
        waiter.refuse(new OverloadedError(this.#queuedKeys, now - waiter.deadline, 0));
        continue;
      }
      this.#inflight += waiter.keys;
      this.#limit.admitted();
      waiter.admit();
    }
    this.#head = compact(queue, this.#head);
  }

  #leaveQueue(waiter: Queued): void {
    waiter.gone = true;
    this.#queuedKeys -= waiter.keys;
    this.#unlisten(waiter);
  }

  #unlisten(waiter: Queued): void {
    waiter.forget?.();
    waiter.forget = undefined;
  }

  /** Rejects everything waiting (the Redlock was closed). */
  close(error: Error): void {
    const first = this.#first.splice(this.#firstHead);
    this.#first.length = 0;
    this.#firstHead = 0;
    for (const waiter of first) waiter!.reject(error);
    const queue = this.#queue;
    for (let i = this.#head; i < queue.length; i++) {
      const waiter = queue[i];
      if (waiter === undefined || waiter.gone) continue;
      this.#unlisten(waiter);
      waiter.refuse(error);
    }
    queue.length = 0;
    this.#head = 0;
    this.#queuedKeys = 0;
  }
}

/**
 * `list` consumed up to `head`: emptied once all of it is, or its consumed head cut off once that
 * dominates (amortised: a long burst neither keeps a 100k-slot array nor shifts it per entry).
 * Answers the new head.
 */
function compact(list: unknown[], head: number): number {
  if (head === 0) return 0;
  if (head === list.length) {
    list.length = 0;
    return 0;
  }
  if (head > 1024 && head * 2 > list.length) {
    list.splice(0, head);
    return 0;
  }
  return head;
}
