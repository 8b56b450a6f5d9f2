import type { Redlock } from 'pipelock';
import type { Cycle, CycleContext } from './cycle.js';
import { keySampler } from './keys.js';
import { cycleForKind, lockerFor } from './kinds.js';
import { holdSampler, meanHold, type MixEntry } from './scenario.js';

/** One mix entry in a worker: its cycle, the context it runs with, and its keys (under a prefix of its own). */
export interface Entry {
  readonly cycle: Cycle;
  readonly context: CycleContext;
  readonly prefix: string;
  readonly key: () => number;
}

/**
 * A worker's mix: each cycle draws its entry by weight. Entries take keys under prefixes of their
 * own, so that a mutex and a read/write lock never meet on one key.
 */
export class Mix {
  readonly entries: readonly Entry[];
  /** Cumulative weights, the last one 1. */
  readonly #cumulative: Float64Array;

  constructor(entries: readonly MixEntry[], redlock: Redlock, base: Omit<CycleContext,
    'acquire' | 'using' | 'holdMs' | 'hold' | 'redlock'>, prefix: string) {
    this.entries = entries.map((e, i) => ({
      cycle: cycleForKind(e.kind, e.operation, e.depth),
      context: { ...base, redlock, ...lockerFor(redlock, e.kind, e.permits), holdMs: meanHold(e.hold), hold: holdSampler(e.hold) },
      prefix: `${prefix}${i}:`,
      key: keySampler(e.keys),
    }));
    const total = entries.reduce((n, e) => n + e.weight, 0);
    let sum = 0;
    this.#cumulative = Float64Array.from(entries, (e) => (sum += e.weight / total));
    this.#cumulative[entries.length - 1] = 1;
  }

  /** The index of the entry the next cycle runs. */
  choose(): number {
    const u = Math.random();
    let i = 0;
    while (this.#cumulative[i]! <= u) i++;
    return i;
  }

  /** The mean hold over the mix, ms. */
  meanHold(): number {
    return this.entries.reduce((n, e, i) => n + e.context.holdMs * (this.#cumulative[i]! - (i === 0 ? 0 : this.#cumulative[i - 1]!)), 0);
  }
}
