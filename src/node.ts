import { NO_COMMAND_TIMEOUT, type RedisClient } from './client.js';
import { NodeUnavailableError, UnexpectedReplyError } from './errors.js';
import { BATCH_SHA, batchArgs, OP_ACQUIRE, scriptLoadArgs, setNxArgs } from './scripts.js';
import { PENDING, TIMEOUT, type Attempt } from './attempt.js';

/** Told about every master-level failure (Redlock turns it into events and diagnostics). */
export type NodeErrorListener = (node: Node, error: Error) => void;

interface Batch {
  readonly seq: number;
  /** The earliest deadline among its operations still undecided on this master; Infinity when none is. */
  deadline: number;
  readonly ops: readonly Attempt[];
  readonly args: string[];
  /** A lone single-key acquisition sent as SET NX PX: the reply is 'OK' or null. */
  readonly setNx: boolean;
  replayed: boolean;
}

/**
 * One master: its connection, its script, and the coalescer that turns every operation queued on
 * it in one tick into one EVALSHA per chunk of `chunkSize` keys.
 *
 * Flush timing: when nothing is in flight on the master, the queue is flushed in a microtask, so a
 * lone lock pays no extra event-loop turn; while calls are in flight, the flush waits for
 * setImmediate, which gathers every operation issued by all the replies of this I/O phase (the
 * continuations of many locks) into one call. @redis/client then writes that call in its own
 * setImmediate, corked with whatever else it has.
 */
export class Node {
  readonly #client: RedisClient;
  readonly #chunkSize: number;
  readonly #coalesce: boolean;
  readonly #onError: NodeErrorListener;
  /** The last failure seen on this master (for `Redlock.ready()` and health reports). */
  lastError: Error | undefined;
  #queue: Attempt[] = [];
  #scheduled = false;
  #inflight = 0;
  #seq = 0;
  /** Whether the connection was ready once: before that, commands wait in @redis/client's offline queue. */
  #everReady: boolean;
  /** Single flight of `SCRIPT LOAD` after a NOSCRIPT; batches wait behind it in order. */
  #reloading: Promise<void> | undefined;
  #replay: Batch[] = [];
  #held: Batch[] = [];
  /**
   * A call of this master went unanswered past its budget, and no call has been answered in time
   * since: attempts do not wait for its vote to find a quorum impossible (Attempt.discount).
   */
  #stalled = false;
  /**
   * Every batch not yet answered (sent, held behind a reload, or waiting to be replayed). The
   * per-attempt deadlines are enforced by scanning these, so a decided attempt is referenced by
   * nothing once its replies are in: keeping every attempt in a deadline heap until its budget ran
   * out doubled the client's cost per cycle, most of it in the garbage collector.
   */
  readonly #open = new Set<Batch>();
  readonly #watch: (deadline: number) => void;

  constructor(
    readonly index: number,
    readonly name: string,
    client: RedisClient,
    readonly owned: boolean,
    chunkSize: number,
    coalesce: boolean,
    onError: NodeErrorListener,
    watch: (deadline: number) => void,
  ) {
    this.#watch = watch;
    this.#client = client;
    this.#chunkSize = chunkSize;
    this.#coalesce = coalesce;
    this.#onError = onError;
    this.#everReady = client.isReady;
    client.on('ready', this.#onReady);
    if (client.isReady) this.#preload();
  }

  get client(): RedisClient {
    return this.#client;
  }

  detach(): void {
    this.#client.off('ready', this.#onReady);
  }

  enqueue(op: Attempt): void {
    if (this.#stalled) op.discount(this.index);
    this.#queue.push(op);
    if (this.#scheduled) return;
    this.#scheduled = true;
    if (this.#inflight === 0) queueMicrotask(this.#flush);
    else setImmediate(this.#flush);
  }

  readonly #onReady = (): void => {
    this.#everReady = true;
    this.#stalled = false;
    this.#preload();
  };

  /** SCRIPT LOAD at connect and at every reconnect, so EVALSHA rarely meets NOSCRIPT. */
  #preload(): void {
    this.#client.sendCommand(scriptLoadArgs(), NO_COMMAND_TIMEOUT).then(
      (sha) => {
        if (sha !== BATCH_SHA) this.#onError(this, new UnexpectedReplyError(this.name, sha));
      },
      (error: unknown) => { this.#onError(this, asError(error)); },
    );
  }

  readonly #flush = (): void => {
    this.#scheduled = false;
    const queue = this.#queue;
    this.#queue = [];
    // A master that was up and is now reconnecting answers nothing: fail its votes at once
    // rather than let @redis/client queue them offline for the whole outage.
    if (this.#everReady && !this.#client.isReady) {
      const error = new NodeUnavailableError(this.name);
      this.#onError(this, error);
      for (const op of queue) op.settle(this.index, error);
      return;
    }
    if (!this.#coalesce) {
      for (let i = 0; i < queue.length; i++) this.#send(queue, i, i + 1);
      return;
    }
    const limit = this.#chunkSize;
    let from = 0;
    let keys = 0;
    for (let i = 0; i < queue.length; i++) {
      const n = queue[i]!.keys.length;
      if (keys + n > limit && i > from) {
        this.#send(queue, from, i);
        from = i;
        keys = 0;
      }
      keys += n;
    }
    this.#send(queue, from, queue.length);
  };

  #send(queue: Attempt[], from: number, to: number): void {
    const first = queue[from]!;
    let batch: Batch;
    if (to - from === 1 && first.opcode === OP_ACQUIRE && first.keys.length === 1) {
      batch = { seq: this.#seq++, deadline: first.deadline, ops: [first], args: setNxArgs(first.keys[0]!, first.token, first.ttlArg), setNx: true, replayed: false };
    } else {
      const ops = from === 0 && to === queue.length ? queue : queue.slice(from, to);
      let deadline = Infinity;
      for (const op of ops) if (op.deadline < deadline) deadline = op.deadline;
      batch = { seq: this.#seq++, deadline, ops, args: batchArgs(BATCH_SHA, ops, 0, ops.length), setNx: false, replayed: false };
    }
    this.#open.add(batch);
    this.#watch(batch.deadline);
    // While the script reloads, later calls wait behind it so that the master sees them in order.
    if (this.#reloading !== undefined) this.#held.push(batch);
    else this.#dispatch(batch);
  }

  #dispatch(batch: Batch): void {
    this.#inflight++;
    this.#client.sendCommand(batch.args, NO_COMMAND_TIMEOUT).then(
      (reply) => {
        this.#inflight--;
        this.#onBatchReply(batch, reply);
      },
      (error: unknown) => {
        this.#inflight--;
        this.#onBatchError(batch, asError(error));
      },
    );
  }

  #onBatchReply(batch: Batch, reply: unknown): void {
    this.#open.delete(batch);
    const ops = batch.ops;
    // Answered while one of its operations still waited for it: the master keeps to the budget again.
    if (this.#stalled) {
      for (const op of ops) {
        if (op.votes[this.index] === PENDING) {
          this.#stalled = false;
          break;
        }
      }
    }
    if (batch.setNx) {
      ops[0]!.settle(this.index, reply === 'OK' ? 1 : reply === null ? 0 : this.#unexpected(reply));
      return;
    }
    if (!Array.isArray(reply) || reply.length !== ops.length) {
      const error = this.#unexpected(reply);
      for (const op of ops) op.settle(this.index, error);
      return;
    }
    for (let i = 0; i < ops.length; i++) {
      const value: unknown = reply[i];
      ops[i]!.settle(this.index, typeof value === 'number' ? value : this.#unexpected(value));
    }
  }

  #onBatchError(batch: Batch, error: Error): void {
    if (!batch.replayed && error.message.startsWith('NOSCRIPT')) {
      batch.replayed = true;
      this.#replay.push(batch);
      this.#reloading ??= this.#reload();
      return;
    }
    this.#open.delete(batch);
    this.#onError(this, error);
    for (const op of batch.ops) op.settle(this.index, error);
  }

  /**
   * The script cache was flushed (restart, SCRIPT FLUSH): load it once, then resend, in their
   * original order, the batches that met NOSCRIPT and those queued meanwhile. Order matters: a
   * failed acquisition's cleanup must reach the master after the acquisition it undoes. Every batch
   * sent before the SCRIPT LOAD answers before it on this connection, so all of them are in
   * `#replay` by the time the load resolves.
   */
  async #reload(): Promise<void> {
    let failure: Error | undefined;
    try {
      const sha = await this.#client.sendCommand(scriptLoadArgs(), NO_COMMAND_TIMEOUT);
      if (sha !== BATCH_SHA) failure = new UnexpectedReplyError(this.name, sha);
    } catch (error) {
      failure = asError(error);
    }
    const batches = this.#replay.sort((a, b) => a.seq - b.seq).concat(this.#held);
    this.#replay = [];
    this.#held = [];
    this.#reloading = undefined;
    if (failure !== undefined) this.#onError(this, failure);
    for (const batch of batches) {
      if (failure === undefined) {
        this.#dispatch(batch);
      } else {
        this.#open.delete(batch);
        for (const op of batch.ops) op.settle(this.index, failure);
      }
    }
  }

  /**
   * Expires every operation of an unanswered batch whose attempt's budget ran out by `now`; returns
   * the earliest deadline still to watch (Infinity when none).
   */
  expire(now: number): number {
    let next = Infinity;
    for (const batch of this.#open) {
      if (batch.deadline > now) {
        if (batch.deadline < next) next = batch.deadline;
        continue;
      }
      let later = Infinity;
      for (const op of batch.ops) {
        const vote = op.votes[this.index];
        // Timed out by another master's scan of the same attempt: this one was silent too.
        if (vote === TIMEOUT) this.#stalled = true;
        if (op.pending === 0 || vote !== PENDING) continue;
        if (op.deadline <= now) {
          op.expire();
          this.#stalled = true;
        }
        else if (op.deadline < later) later = op.deadline;
      }
      batch.deadline = later;
      if (later < next) next = later;
    }
    return next;
  }

  #unexpected(reply: unknown): Error {
    const error = new UnexpectedReplyError(this.name, reply);
    this.#onError(this, error);
    return error;
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
