import type { Attempt } from './attempt.js';
import type { Flushable, Flusher } from './flusher.js';
import { callArgs } from '../protocol/calls.js';
import { OP_ACQUIRE } from '../protocol/opcodes.js';
import { setNxArgs } from '../protocol/calls.js';

/**
 * While no more operations than this are out on the master, a flush goes in a microtask: gathering
 * the replies of an I/O phase (setImmediate) pays an event-loop turn, which a lock or a few in flight
 * gain nothing for (docs/decisions/0006-lone-calls.md).
 */
const kGatherAbove = 4;

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
  /** Its place among its master's unanswered calls (src/engine/unanswered.ts); -1 when not there. */
  slot: number;
}

/** Where a coalescer's batches go: the master that sends them. */
export interface Outlet {
  /** Operations sent in calls not yet answered: while many are, flushing waits for the I/O phase. */
  readonly inflight: number;
  /** The batches of one flush, in order. */
  send(batches: readonly Batch[]): void;
}

/**
 * The coalescer of one master: every operation enqueued on it in one tick becomes one EVALSHA per
 * chunk of `chunkSize` keys, of LEAN_SCRIPT or BATCH_SCRIPT as the chunk's operations allow
 * (src/protocol/calls.ts).
 *
 * Flush timing (src/engine/flusher.ts): while few operations are out on the master, in a microtask, so
 * a lone lock pays no extra event-loop turn; while more are, in setImmediate, which
 * gathers every operation issued by the replies of this I/O phase into one call. @redis/client then
 * writes that call in its own setImmediate, corked with whatever else it has (node-redis `#scheduleWrite`).
 */
export class Coalescer implements Flushable {
  readonly #outlet: Outlet;
  readonly #flusher: Flusher;
  readonly #chunkSize: number;
  readonly #coalesce: boolean;
  /** The one operation waiting (most flushes carry one), or undefined while #many holds them. */
  #one: Attempt | undefined;
  #many: Attempt[] | undefined;
  #scheduled = false;
  #seq = 0;

  /** `coalesce: false` sends one call per operation (each still a script call, or SET NX). */
  constructor(outlet: Outlet, flusher: Flusher, chunkSize: number, coalesce: boolean) {
    this.#outlet = outlet;
    this.#flusher = flusher;
    this.#chunkSize = chunkSize;
    this.#coalesce = coalesce;
  }

  /** Nothing waits to be sent. */
  get empty(): boolean {
    return !this.#scheduled;
  }

  enqueue(op: Attempt): void {
    if (this.#many !== undefined) this.#many.push(op);
    else if (this.#one === undefined) this.#one = op;
    else {
      this.#many = [this.#one, op];
      this.#one = undefined;
    }
    if (this.#scheduled) return;
    this.#scheduled = true;
    if (this.#outlet.inflight <= kGatherAbove) this.#flusher.soon(this);
    else this.#flusher.later(this);
  }

  flush(): void {
    this.#scheduled = false;
    const one = this.#one;
    if (one !== undefined) {
      this.#one = undefined;
      // Its clock (budget and validity) starts as its commands go out; the other masters'
      // flushes of the tick find it started.
      if (one.unsent) one.sent(performance.now());
      this.#outlet.send([this.#batch([one], 0, 1)]);
      return;
    }
    const pending = this.#many;
    if (pending === undefined) return;
    this.#many = undefined;
    // Each operation's clock (its budget and its validity) starts as its commands go out: a burst
    // can keep the client busy for longer than a budget between making an attempt and sending it.
    let now = -1;
    for (let i = 0; i < pending.length; i++) {
      const op = pending[i]!;
      if (!op.unsent) continue;
      if (now === -1) now = performance.now();
      op.sent(now);
    }
    this.#outlet.send(this.cut(pending));
  }

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
    // A lone operation's words are the same on every master: made once, for the first.
    if (to - from === 1 && first.opcode === OP_ACQUIRE && first.keys.length === 1) {
      return { seq: this.#seq++, deadline: first.deadline, ops: pending.length === 1 ? pending : [first], args: first.alone ??= setNxArgs(first.keys[0]!, first.token, first.ttlArg), setNx: true, replayed: false, connection: 0, slot: -1 };
    }
    if (to - from === 1) {
      return { seq: this.#seq++, deadline: first.deadline, ops: pending.length === 1 ? pending : [first], args: first.alone ??= callArgs(pending, from, to), setNx: false, replayed: false, connection: 0, slot: -1 };
    }
    const ops = from === 0 && to === pending.length ? pending : pending.slice(from, to);
    let deadline = Infinity;
    for (const op of ops) if (op.deadline < deadline) deadline = op.deadline;
    return { seq: this.#seq++, deadline, ops, args: callArgs(ops, 0, ops.length), setNx: false, replayed: false, connection: 0, slot: -1 };
  }
}
