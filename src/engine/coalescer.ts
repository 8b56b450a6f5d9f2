import type { Attempt } from './attempt.js';
import type { Flushable, Flusher } from './flusher.js';
import { callArgs } from '../protocol/calls.js';
import { OP_ACQUIRE, OP_RELEASE } from '../protocol/opcodes.js';
import { nativeArgs, setNxArgs, type Capabilities, type CommandsMode } from '../protocol/native.js';

/**
 * While no more operations than this are out on the master, a flush goes in a microtask: gathering
 * the replies of an I/O phase (setImmediate) pays an event-loop turn, which a lock or a few in flight
 * gain nothing for (docs/decisions/0006-lone-calls.md).
 */
const kGatherAbove = 4;

/**
 * In mode 'auto', while more operations than this would be out on a member that runs scripts, a
 * flush goes by script: past it (a burst of thousands), a native command per operation costs the
 * client more than the masters save. 256 split concurrency 512 between the paths (decision 0007).
 */
export const kNativeAtMost = 1024;

/** A run's `args`: its words are its `commands`. */
const kNoArgs: readonly string[] = Object.freeze([]);

/** One call to a master: the operations it carries and its words. */
export interface Batch {
  /** Order of cutting on this master (NOSCRIPT replay resends in this order). */
  readonly seq: number;
  /** The earliest deadline among its operations still undecided on this master; Infinity when none is. */
  deadline: number;
  readonly ops: readonly Attempt[];
  /** Its words: one command (empty for a run, see `commands`). */
  readonly args: readonly string[];
  /** Sent as native commands (src/protocol/native.ts): each reply is 'OK', 1, 0 or nil, not a script's. */
  readonly native: boolean;
  /**
   * A run: one native command per operation, posted together, its replies gathered in order (src/engine/native-run.ts);
   * undefined for one command.
   */
  readonly commands?: readonly (readonly string[])[];
  /** Already resent once after NOSCRIPT: a second NOSCRIPT is an error. */
  replayed: boolean;
  /** The master's connection (counted in reconnects) when the batch was handed to it. */
  connection: number;
  /** Its place among its master's unanswered calls (src/engine/unanswered.ts); -1 when not there. */
  slot: number;
  /** performance.now() once its words were handed to the socket (Deadlines.stamp); 0 until then. */
  written: number;
}

/** Where a coalescer's batches go: the master that sends them. */
export interface Outlet {
  /** Operations sent in calls not yet answered: while many are, flushing waits for the I/O phase. */
  readonly inflight: number;
  /** What the master accepts now (src/engine/capability.ts). */
  readonly capabilities: Capabilities;
  /** The batches of one flush, in order. */
  send(batches: readonly Batch[]): void;
}

/**
 * The coalescer of one master: every operation enqueued in one tick becomes one EVALSHA per chunk of `chunkSize`
 * keys (src/protocol/calls.ts), flushed as src/engine/flusher.ts says (docs/decisions/0006).
 */
export class Coalescer implements Flushable {
  readonly #outlet: Outlet;
  readonly #flusher: Flusher;
  readonly #chunkSize: number;
  readonly #coalesce: boolean;
  readonly #mode: CommandsMode;
  /** The master's connection posts commands with no promise each (src/transport/lean/): a native command costs it little. */
  readonly #posts: boolean;
  /**
   * A tick's acquisitions go as one `SET NX PX` (or `MSETEX`) each rather than in one script call: in 'auto', where the
   * connection posts, on Redis 7 as on Valkey: the masters spend 13-19 % less per cycle for the same client CPU
   * (decision 0007, "Redis 7 too").
   */
  readonly #acquiresNatively: boolean;
  /** The one operation waiting (most flushes carry one), or undefined while #many holds them. */
  #one: Attempt | undefined;
  #many: Attempt[] | undefined;
  #scheduled = false;
  #seq = 0;

  /** `coalesce: false` sends one call per operation (each still a script call, or a native command). */
  constructor(outlet: Outlet, flusher: Flusher, chunkSize: number, coalesce: boolean, mode: CommandsMode, posts = false) {
    this.#outlet = outlet;
    this.#flusher = flusher;
    this.#chunkSize = chunkSize;
    this.#coalesce = coalesce;
    this.#mode = mode;
    this.#posts = posts;
    this.#acquiresNatively = mode === 'native' || (mode === 'auto' && posts);
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
      const native = this.#native(one, this.#outlet.capabilities, false);
      this.#outlet.send([native === undefined ? this.#scripted([one], 0, 1) : this.#single(one, native, true)]);
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

  /**
   * The calls for one flush's operations, in order: script runs chunked by chunkSize, native operations a call each
   * (where the connection posts, consecutive ones one run of commands), so a master runs one key's operations in the
   * order they came. `byScript`: all by script.
   */
  cut(pending: Attempt[], byScript = false): Batch[] {
    const batches: Batch[] = [];
    const caps = this.#outlet.capabilities;
    // Uncoalesced, each operation is a call of its own: a lone one.
    const many = this.#coalesce && pending.length > 1;
    // Under a backlog, operations go by script where the member runs scripts: one native command
    // per operation costs the client a command's encoding, promise and reply each, and thousands
    // of them out per master outlast a node timeout (docs/decisions/0007-native-commands.md).
    const burst = byScript || (this.#outlet.inflight + pending.length > kNativeAtMost && this.#mode === 'auto' && caps.scripting);
    const limit = this.#coalesce ? this.#chunkSize : 1;
    let from = 0;
    let keys = 0;
    // Consecutive native operations on a posting connection: one Batch, not one each (decision 0007).
    let run: Attempt[] | undefined;
    let words: (readonly string[])[] | undefined;
    for (let i = 0; i < pending.length; i++) {
      const op = pending[i]!;
      const native = burst ? undefined : this.#native(op, caps, many);
      if (native !== undefined) {
        if (i > from) batches.push(this.#scripted(pending, from, i));
        from = i + 1;
        keys = 0;
        if (!this.#posts) batches.push(this.#single(op, native, true));
        else {
          (run ??= []).push(op);
          (words ??= []).push(native);
        }
        continue;
      }
      if (run !== undefined) {
        batches.push(this.#run(run, words!));
        run = words = undefined;
      }
      const n = op.keys.length;
      // An operation is never split: one with more keys than a chunk goes alone.
      if (keys + n > limit && i > from) {
        batches.push(this.#scripted(pending, from, i));
        from = i;
        keys = 0;
      }
      keys += n;
    }
    // At most one of the two is open: a native operation closes the script run before it, a scripted one the native run.
    if (run !== undefined) batches.push(this.#run(run, words!));
    if (from < pending.length) batches.push(this.#scripted(pending, from, pending.length));
    return batches;
  }

  /** One call of native commands, one per operation of `ops` (`commands[i]` is `ops[i]`'s). */
  #run(ops: Attempt[], commands: (readonly string[])[]): Batch {
    if (ops.length === 1) return this.#single(ops[0]!, commands[0]!, true);
    let deadline = Infinity;
    for (const op of ops) if (op.deadline < deadline) deadline = op.deadline;
    return { seq: this.#seq++, deadline, ops, args: kNoArgs, native: true, commands, replayed: false, connection: 0, slot: -1, written: 0 };
  }

  /** `op`'s native words on this master, or undefined when it goes by script (docs/decisions/0007 and 0001). */
  #native(op: Attempt, caps: Capabilities, many: boolean): readonly string[] | undefined {
    const opcode = op.opcode;
    const mode = this.#mode;
    // Several keys: only an acquisition, by MSETEX (nativeArgs says where), under one key's rules (many in a flush go by script).
    if (op.keys.length !== 1 && (opcode !== OP_ACQUIRE || !caps.msetex || mode === 'scripts')) return undefined;
    if (caps.scripting) {
      if (opcode === OP_ACQUIRE ? many && !this.#acquiresNatively : mode === 'scripts') return undefined;
    }
    // An operation's native words are the same on every master with the same commands: made once.
    const alone = op.alone;
    const word = opcode === OP_ACQUIRE ? (op.keys.length === 1 ? 'SET' : 'MSETEX') : opcode === OP_RELEASE ? caps.deleteIfEq
      : caps.setIfEq ? 'SET' : undefined;
    if (word === undefined) return undefined;
    if (alone !== undefined && alone[0] === word) return alone;
    const args = opcode === OP_ACQUIRE && op.keys.length === 1 ? setNxArgs(op.keys[0]!, op.token, op.ttlArg) : nativeArgs(op, caps);
    if (args !== undefined) op.alone = args;
    return args;
  }

  #single(op: Attempt, args: readonly string[], native: boolean): Batch {
    return { seq: this.#seq++, deadline: op.deadline, ops: [op], args, native, replayed: false, connection: 0, slot: -1, written: 0 };
  }

  /** One script call for pending[from, to). */
  #scripted(pending: Attempt[], from: number, to: number): Batch {
    const first = pending[from]!;
    if (to - from === 1) {
      // A lone operation's words are the same on every master: made once, for the first.
      const alone = first.alone;
      const args = alone !== undefined && alone[0] === 'EVALSHA' ? alone : (first.alone = callArgs(pending, from, to));
      return this.#single(first, args, false);
    }
    const ops = from === 0 && to === pending.length ? pending : pending.slice(from, to);
    let deadline = Infinity;
    for (const op of ops) if (op.deadline < deadline) deadline = op.deadline;
    return { seq: this.#seq++, deadline, ops, args: callArgs(ops, 0, ops.length), native: false, replayed: false,
      connection: 0, slot: -1, written: 0 };
  }
}
