/** The longest delay Node's timers take: a longer one is cut to 1 ms, re-arming every ms for a lock of over ~24.8 days. */
export const kMaxTimerMs = 2 ** 31 - 1;

/** One unref'd timer for a `performance.now()` instant: each scheduler is one over its own structure, never one per lock. */
export class Alarm {
  readonly #ring: () => void;
  #timer: NodeJS.Timeout | undefined;
  #at = Infinity;

  constructor(ring: () => void) {
    this.#ring = ring;
  }

  /** Rings at `at` unless already set to ring earlier. */
  before(at: number): void {
    if (at < this.#at) this.set(at);
  }

  set(at: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#at = at;
    // A far instant rings early, at the longest timer; both schedulers re-check what is due and re-arm.
    this.#timer = setTimeout(this.#fire, Math.min(kMaxTimerMs, Math.max(0, Math.ceil(at - performance.now()))));
    // Pending commands keep the process alive by themselves; this timer must not.
    this.#timer.unref();
  }

  cancel(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#at = Infinity;
  }

  readonly #fire = (): void => {
    this.#timer = undefined;
    this.#at = Infinity;
    this.#ring();
  };
}
