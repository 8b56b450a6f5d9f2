import type { Sink } from '../transport.js';

/**
 * One connection's commands awaiting replies, in write order (each reply settles the oldest): a ring of two arrays,
 * grown by doubling, so a steady stream allocates nothing per command.
 */
export class Pending {
  #sinks: (Sink | undefined)[] = new Array<Sink | undefined>(16);
  #tokens: unknown[] = new Array<unknown>(16);
  #head = 0;
  #size = 0;

  get size(): number {
    return this.#size;
  }

  push(sink: Sink, token: unknown): void {
    if (this.#size === this.#sinks.length) this.#grow();
    const at = (this.#head + this.#size) & (this.#sinks.length - 1);
    this.#sinks[at] = sink;
    this.#tokens[at] = token;
    this.#size++;
  }

  /** Settles the oldest command with its reply (an Error settles it as failed); false when none waits. */
  settle(reply: unknown, failed: boolean): boolean {
    if (this.#size === 0) return false;
    const at = this.#head;
    const sink = this.#sinks[at]!;
    const token = this.#tokens[at];
    this.#sinks[at] = undefined;
    this.#tokens[at] = undefined;
    this.#head = (at + 1) & (this.#sinks.length - 1);
    this.#size--;
    if (failed) sink.failed(token, reply as Error);
    else sink.replied(token, reply);
    return true;
  }

  /** Fails every waiting command with `error`, oldest first (those failing adds meanwhile included). */
  failAll(error: Error): void {
    while (this.settle(error, true));
  }

  /** Moves every command of `other` behind this one's, in order. */
  take(other: Pending): void {
    while (other.#size > 0) {
      const at = other.#head;
      this.push(other.#sinks[at]!, other.#tokens[at]);
      other.#sinks[at] = undefined;
      other.#tokens[at] = undefined;
      other.#head = (at + 1) & (other.#sinks.length - 1);
      other.#size--;
    }
  }

  #grow(): void {
    const length = this.#sinks.length;
    const sinks = new Array<Sink | undefined>(length * 2);
    const tokens = new Array<unknown>(length * 2);
    for (let i = 0; i < length; i++) {
      const at = (this.#head + i) & (length - 1);
      sinks[i] = this.#sinks[at];
      tokens[i] = this.#tokens[at];
    }
    this.#sinks = sinks;
    this.#tokens = tokens;
    this.#head = 0;
  }
}

/** The sink of `send()`'s promises: the token is the promise's settle pair. */
export interface Settle {
  resolve(reply: unknown): void;
  reject(error: Error): void;
}

export const promiseSink: Sink<Settle> = {
  replied(token, reply) {
    token.resolve(reply);
  },
  failed(token, error) {
    token.reject(error);
  },
};
