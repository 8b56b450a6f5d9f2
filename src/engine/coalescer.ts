import type { Attempt } from './attempt.js';
import { callArgs } from '../protocol/calls.js';
import { OP_ACQUIRE } from '../protocol/opcodes.js';
import { setNxArgs } from '../protocol/calls.js';

/** One call to a master: the operations it carries and its words. */
export interface Batch {
  /** Order of cutting on this master (NOSCRIPT replay resends in this order). */
  readonly seq: number;
  /** The earliest deadline among its operations still undecided on this master; Infinity when none is. */
  deadline: number;
  readonly ops: readonly Attempt[];
  readonly args: readonly string[];
  /** A lone single-key acquisition sent as SET NX PX: the reply is 'OK' or null. */
  readonly setNx: boolean;
  /** Already resent once after NOSCRIPT: a second NOSCRIPT is an error. */
  replayed: boolean;
  /** The master's connection (counted in reconnects) when the batch was handed to it. */
  connection: number;
}

/** Where a coalescer's batches go: the master that sends them. */
export interface Outlet {
  /** Calls sent and not yet answered: while there are some, flushing waits for the I/O phase. */
  readonly inflight: number;
  /** The batches of one flush, in order. */
  send(batches: readonly Batch[]): void;
}

/**
 * The coalescer of one master: every operation enqueued on it in one tick becomes one EVALSHA per
 * chunk of `chunkSize` keys, of LEAN_SCRIPT or BATCH_SCRIPT as the chunk's operations allow
 * (src/protocol/calls.ts).
 *
 * Flush timing: when nothing is in flight on the master, its pending operations are flushed in a microtask, so a
 * lone lock pays no extra event-loop turn; while calls are in flight, the flush waits for
 * setImmediate, which gathers every operation issued by all the replies of this I/O phase (the
 * continuations of many locks) into one call. @redis/client then writes that call in its own
 * setImmediate, corked with whatever else it has (node-redis `#scheduleWrite`).
 */
export class Coalescer {
  readonly #outlet: Outlet;
  readonly #chunkSize: number;
  readonly #coalesce: boolean;
  #pending: Attempt[] = [];
  #scheduled = false;
  #seq = 0;

  /** `coalesce: false` sends one call per operation (each still a script call, or SET NX). */
  constructor(outlet: Outlet, chunkSize: number, coalesce: boolean) {
    this.#outlet = outlet;
    this.#chunkSize = chunkSize;
    this.#coalesce = coalesce;
  }

  /** Nothing waits to be sent. */
  get empty(): boolean {
    return !this.#scheduled;
  }

  enqueue(op: Attempt): void {
    this.#pending.push(op);
    if (this.#scheduled) return;
    this.#scheduled = true;
    if (this.#outlet.inflight === 0) queueMicrotask(this.#flush);
    else setImmediate(this.#flush);
  }

  readonly #flush = (): void => {
    this.#scheduled = false;
    const pending = this.#pending;
    this.#pending = [];
    // Each operation's clock (its budget and its validity) starts as its commands go out: a burst
    // can keep the client busy for longer than a budget between making an attempt and sending it.
    const now = performance.now();
    for (let i = 0; i < pending.length; i++) pending[i]!.sent(now);
    this.#outlet.send(this.cut(pending));
  };

  /** The calls for the operations of one flush, in their order. */
  cut(pending: Attempt[]): Batch[] {
    const batches: Batch[] = [];
    if (!this.#coalesce) {
      for (let i = 0; i < pending.length; i++) batches.push(this.#batch(pending, i, i + 1));
      return batches;
    }
    const limit = this.#chunkSize;
    let from = 0;
    let keys = 0;
    for (let i = 0; i < pending.length; i++) {
      const n = pending[i]!.keys.length;
      // An operation is never split: one with more keys than a chunk goes alone.
      if (keys + n > limit && i > from) {
        batches.push(this.#batch(pending, from, i));
        from = i;
        keys = 0;
      }
      keys += n;
    }
    batches.push(this.#batch(pending, from, pending.length));
    return batches;
  }

  #batch(pending: Attempt[], from: number, to: number): Batch {
    const first = pending[from]!;
    // A lone single-key acquisition needs no script: SET NX PX is the cheapest call Redis has for it.
    // Not so for many: one plain SET each costs the client a promise and a queue entry per command
    // in @redis/client, more than the masters save (docs/decisions/0001-script-shapes.md).
    if (to - from === 1 && first.opcode === OP_ACQUIRE && first.keys.length === 1) {
      return { seq: this.#seq++, deadline: first.deadline, ops: [first], args: setNxArgs(first.keys[0]!, first.token, first.ttlArg), setNx: true, replayed: false, connection: 0 };
    }
    const ops = from === 0 && to === pending.length ? pending : pending.slice(from, to);
    let deadline = Infinity;
    for (const op of ops) if (op.deadline < deadline) deadline = op.deadline;
    return { seq: this.#seq++, deadline, ops, args: callArgs(ops, 0, ops.length), setNx: false, replayed: false, connection: 0 };
  }
}
