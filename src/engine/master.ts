import { Attempt, PENDING } from './attempt.js';
import type { MasterClient } from '../clients.js';
import { Coalescer, type Batch, type Outlet } from './coalescer.js';
import type { Deadlines } from './deadlines.js';
import type { Flusher } from './flusher.js';
import { NodeStalledError, NodeUnavailableError, UnexpectedReplyError } from '../errors.js';
import { answerAt, isCallReply } from '../protocol/calls.js';
import { loadScripts, ScriptReplay, type ReplayTarget } from './script-replay.js';
import { asError } from '../util/checks.js';
import { isRelease, undoOf, type OpCode } from '../protocol/opcodes.js';
import type { Transport } from '../transport/transport.js';
import { Unanswered, type Stalls } from './unanswered.js';
import { nodeCallStart, publishNodeCall, publishNodeCallError } from './channels.js';

/** Releases kept for a stalled master (see Node.#defer): past this many, their keys expire with their TTL. */
const kMaxDeferred = 4096;

/** What every master of a set shares: the one deadline timer, the stall count, the one flush scheduler. */
export interface MastersShared {
  readonly deadlines: Deadlines;
  readonly stalls: Stalls;
  readonly flusher: Flusher;
}

/** Told about every master-level failure (the master set turns it into events and diagnostics). */
export type NodeErrorListener = (node: Master, error: Error) => void;

/**
 * One master (a Redlock member): its connection (through a Transport), its coalescer, and how its replies become
 * votes. Its unanswered calls and their deadlines live in `Unanswered`, NOSCRIPT recovery in
 * `ScriptReplay`.
 */
export class Master implements Outlet, ReplayTarget {
  readonly transport: Transport;
  /** The client as the caller gave it (or as pipelock opened it), for `Redlock.clients` and stats. */
  readonly client: MasterClient;
  /** The last failure seen on this master (for `Redlock.ready()` and health reports). */
  lastError: Error | undefined;
  /** Operations sent in calls not yet answered. */
  inflight = 0;
  readonly #coalescer: Coalescer;
  readonly #unanswered: Unanswered;
  readonly #replay: ScriptReplay;
  readonly #onError: NodeErrorListener;
  readonly #unsubscribe: () => void;
  readonly #unsubscribeDrops: () => void;
  /** Whether the connection was ready once: before that, commands wait in the client's offline queue. */
  #everReady: boolean;
  /**
   * Counts the connection's errors (a dropped socket is one): a batch handed over before one and
   * answered after it was written on a later connection. See #late.
   */
  #connection = 0;
  /**
   * The transport splits batches itself (a Redis Cluster member, src/transport/cluster/transport.ts): its
   * calls can be resent after a redirection, so a cleanup may overtake the acquisition it undoes;
   * every reply is then checked for acquisitions that succeeded too late (#late).
   */
  readonly #routed: boolean;
  /** Deletes of late keys (#late) waiting for the connection to be ready. */
  #afterReady: Attempt[] | undefined;
  /** What the operations not sent to this stalled master are settled with, one per stall (`episode`). */
  #stall: NodeStalledError | undefined;
  #stallEpisode = 0;
  /** Releases not sent to this stalled master, to be sent once it answers in time or reconnects. */
  #deferred: Attempt[] | undefined;

  constructor(
    readonly index: number,
    transport: Transport,
    /** pipelock opened the connection (from a URL or seeds) and closes it. */
    readonly owned: boolean,
    settings: { readonly chunkSize: number; readonly coalesce: boolean },
    onError: NodeErrorListener,
    shared: MastersShared,
  ) {
    this.transport = transport;
    this.client = transport.client;
    this.#coalescer = new Coalescer(this, shared.flusher, settings.chunkSize, settings.coalesce);
    this.#unanswered = new Unanswered(index, shared.deadlines, shared.stalls);
    this.#replay = new ScriptReplay(this);
    this.#onError = onError;
    this.#everReady = transport.isReady;
    this.#routed = transport.sendBatch !== undefined;
    this.#unsubscribe = transport.onReady(this.#onReady);
    // Not on 'ready': @redis/client writes what it kept before it emits 'ready', and the replies
    // can come first. It emits 'error' before it fails the replies it awaited.
    this.#unsubscribeDrops = transport.onError(() => {
      this.#connection++;
    });
    if (transport.isReady) this.#preload();
  }

  get name(): string {
    return this.transport.name;
  }

  detach(): void {
    this.#unsubscribe();
    this.#unsubscribeDrops();
  }

  /** Nothing waits to be sent and every call sent was answered, failed or timed out (Redlock.quit drains to this). */
  get idle(): boolean {
    return this.#coalescer.empty && !this.#unanswered.waiting;
  }

  enqueue(op: Attempt): void {
    const unanswered = this.#unanswered;
    if (unanswered.stalled) {
      // Not sent: its vote is missing at once, as a disconnected master's is.
      if (!unanswered.admits(op)) {
        op.settle(this.index, this.#stallError());
        if (isRelease(op.opcode)) this.#defer(op);
        return;
      }
      op.discount(this.index);
    }
    this.#coalescer.enqueue(op);
  }

  /** This stall's error, made and reported (once per stall) when the first operation is not sent. */
  #stallError(): NodeStalledError {
    const episode = this.#unanswered.episode;
    if (this.#stall === undefined || this.#stallEpisode !== episode) {
      this.#stall = new NodeStalledError(this.name);
      this.#stallEpisode = episode;
      this.report(this.#stall);
    }
    return this.#stall;
  }

  /**
   * A release not sent to this stalled master may be of keys it holds (it granted them in time
   * before it stalled again): its owner-checked delete is sent here once the stall is over, rather
   * than leave them to their TTL. Bounded: a stall of the main job sheds thousands a second.
   */
  #defer(op: Attempt): void {
    const deferred = (this.#deferred ??= []);
    if (deferred.length < kMaxDeferred) deferred.push(op);
  }

  #sendDeferred(): void {
    const deferred = this.#deferred;
    this.#deferred = undefined;
    if (deferred === undefined) return;
    for (const op of deferred) {
      const undo = this.#undo(op.opcode, op.keys, op);
      undo.target = op.target;
      undo.extra = op.extra;
      this.#coalescer.enqueue(undo);
    }
  }

  /** `opcode` over `keys` under `op`'s token, on this master only: nobody waits for its decision. */
  #undo(opcode: OpCode, keys: readonly string[], op: Attempt): Attempt {
    const undo = new Attempt(opcode, keys, op.token, '0', 1, performance.now(), op.budget, true, op.votes.length);
    for (let node = 0; node < op.votes.length; node++) if (node !== this.index) undo.skip(node);
    return undo;
  }

  /** Deadline scan of this master's unanswered calls (see Unanswered.expire). */
  expire(now: number): number {
    return this.#unanswered.expire(now);
  }

  readonly #onReady = (): void => {
    this.#everReady = true;
    this.#unanswered.reconnected();
    this.#preload();
    this.#sendDeferred();
    const later = this.#afterReady;
    this.#afterReady = undefined;
    if (later !== undefined) for (const op of later) this.enqueue(op);
  };

  /** SCRIPT LOAD at connect and at every reconnect, so EVALSHA rarely meets NOSCRIPT. */
  #preload(): void {
    loadScripts(this.transport).catch((error: unknown) => { this.report(asError(error)); });
  }

  /** The coalescer's flush. */
  send(batches: readonly Batch[]): void {
    // A master that was up and is now reconnecting answers nothing: fail its votes at once
    // rather than let the client queue them offline for the whole outage.
    if (this.#everReady && !this.transport.isReady) {
      const error = new NodeUnavailableError(this.name);
      this.report(error);
      for (const batch of batches) for (const op of batch.ops) op.settle(this.index, error);
      return;
    }
    for (const batch of batches) {
      batch.connection = this.#connection;
      this.#unanswered.add(batch);
      if (!this.#replay.hold(batch)) this.dispatch(batch);
    }
  }

  dispatch(batch: Batch): void {
    this.inflight += batch.ops.length;
    const sent = nodeCallStart();
    const transport = this.transport;
    (transport.sendBatch === undefined ? transport.send(batch.args) : transport.sendBatch(batch)).then(
      (reply) => {
        this.inflight -= batch.ops.length;
        publishNodeCall(this.index, this.name, sent, batch.ops.length);
        this.#onReply(batch, reply);
      },
      (error: unknown) => {
        this.inflight -= batch.ops.length;
        publishNodeCallError(this.index, this.name, sent, batch.ops.length, error);
        const failure = asError(error);
        if (this.#replay.recover(batch, failure)) return;
        this.report(failure);
        this.fail(batch, failure);
      },
    );
  }

  fail(batch: Batch, error: Error): void {
    this.#unanswered.failed(batch);
    for (const op of batch.ops) op.settle(this.index, error);
  }

  report(error: Error): void {
    this.#onError(this, error);
  }

  #onReply(batch: Batch, reply: unknown): void {
    // Read before the answer can end the stall: the batch's other operations may have timed out.
    const stalled = this.#unanswered.stalled;
    if (this.#unanswered.answered(batch)) this.#sendDeferred();
    if (stalled || batch.connection !== this.#connection || this.#routed) this.#late(batch, reply);
    const ops = batch.ops;
    if (batch.setNx) {
      ops[0]!.settle(this.index, reply === 'OK' ? 1 : reply === null ? 0 : this.#unexpected(reply));
      return;
    }
    if (!isCallReply(reply, ops.length)) {
      const error = this.#unexpected(reply);
      for (const op of ops) op.settle(this.index, error);
      return;
    }
    let reported: unknown;
    for (let i = 0; i < ops.length; i++) {
      const value = answerAt(reply, ops.length, i);
      if (typeof value === 'number') {
        ops[i]!.settle(this.index, value);
      } else if (value instanceof Error) {
        // A routed transport's per-operation failure (one shard's call failed, the others' did not).
        if (value !== reported) this.report(value);
        reported = value;
        ops[i]!.settle(this.index, value);
      } else {
        ops[i]!.settle(this.index, this.#unexpected(value));
      }
    }
  }

  /**
   * A batch handed over before a connection error and answered after it: @redis/client keeps a command
   * it had not yet written when the socket dropped and writes it on the next connection (only the
   * replies it awaited are failed). An acquisition written that late, after its attempt had timed
   * this master out and its cleanup had failed here at once (the master was down), set a key
   * nobody would release. Such a key was never counted in any quorum: deleting it (owner-checked,
   * on this master only) is safe whatever became of the attempt; an error that dropped nothing
   * only costs a redundant delete of such keys; aborting those commands instead
   * cost more than it saves (docs/decisions/0003-late-replies.md).
   * So too a batch a stalled master answers past its budget: the release of a lock it granted that
   * late may have been settled here without being sent (NodeStalledError). These undos go out even
   * while it is still flagged: it has just answered, and there are no more of them than calls it was sent.
   */
  #late(batch: Batch, reply: unknown): void {
    const ops = batch.ops;
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!;
      if (op.votes[this.index] === PENDING) continue;
      const value = batch.setNx ? (reply === 'OK' ? 1 : 0) : isCallReply(reply, ops.length) ? answerAt(reply, ops.length, i) : 0;
      if (typeof value !== 'number' || value <= 0) continue;
      const what = undoOf(op.opcode, op.keys, op.target, value);
      if (what === undefined) continue;
      const undo = this.#undo(what.opcode, what.keys, op);
      // The reply can come before 'ready' (see the constructor), when sends still fail at once.
      if (this.transport.isReady) this.#coalescer.enqueue(undo);
      else (this.#afterReady ??= []).push(undo);
    }
  }

  #unexpected(reply: unknown): Error {
    const error = new UnexpectedReplyError(this.name, reply);
    this.report(error);
    return error;
  }
}
