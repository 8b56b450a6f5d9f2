/** Keys a window starts with: one coalesced call of 256 keys per master (then slow start). */
export const kInitialWindowKeys = 256;
/** The ceiling (16 calls per master): a full window stays a small part of a budget, and is what one stall can time out. */
export const kMaxWindowKeys = 4096;
/** Never below this, so a busy machine still moves a chunk per round trip. */
export const kMinWindowKeys = 256;

/**
 * How many acquisition keys the admission window lets out at once, adapted as TCP's window is (RFC 5681): slow
 * start from one call, halving when queueing eats the budget (docs/decisions/0012, "limit.ts").
 */
export class AdaptiveLimit {
  #limit = kInitialWindowKeys;
  /** Slow start's threshold: below it the limit doubles per round trip, above it grows by a call. */
  #threshold = kMaxWindowKeys;
  /** EWMA of the time from sending an attempt to its decision, ms; 0 until the first sample. */
  #latency = 0;
  /** Admissions so far, and the count when the limit was last cut: one cut per round trip. */
  #admitted = 0;
  #cutAt = 0;
  /** The limit held someone back since the window was last empty: only then does it grow. */
  pressed = false;

  get value(): number {
    return this.#limit;
  }

  admitted(): void {
    this.#admitted++;
  }

  /** An admitted attempt of `keys` keys was decided `latency` ms after it was sent, within `budget` ms; `inflight` keys are still out. */
  decided(keys: number, latency: number, budget: number, inflight: number): void {
    this.#latency = this.#latency === 0 ? latency : 0.9 * this.#latency + 0.1 * latency;
    if (latency > budget / 4) {
      if (this.#admitted > this.#cutAt) {
        this.#limit = Math.max(kMinWindowKeys, Math.floor(this.#limit / 2));
        this.#threshold = this.#limit;
        // Attempts admitted before this cut were sent under the old limit: their late answers must not cut again.
        this.#cutAt = this.#admitted + Math.ceil(inflight / Math.max(1, keys));
      }
    } else if (latency < budget / 8 && this.pressed) {
      const growth = this.#limit < this.#threshold ? keys : Math.max(1, Math.floor((kMinWindowKeys * keys) / this.#limit));
      this.#limit = Math.min(kMaxWindowKeys, this.#limit + growth);
    }
  }

  /** Estimated ms until `keys` more keys, queued behind `queued` keys, are sent: the queue drained at `limit` keys per decision time. */
  estimate(queued: number, keys: number): number {
    return this.#latency === 0 ? 0 : ((queued + keys) / this.#limit) * this.#latency;
  }
}
