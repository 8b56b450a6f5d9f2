import type { Attempt } from './attempt.js';
import type { MasterClient } from './redis-client.js';
import { Coalescer, type Batch, type Outlet } from './coalescer.js';
import type { Deadlines } from './deadlines.js';
import { NodeUnavailableError, UnexpectedReplyError } from './errors.js';
import { asError, ScriptReplay, type ReplayTarget } from './script-replay.js';
import { BATCH_SHA, scriptLoadArgs } from './scripts.js';
import type { Transport } from './transport.js';
import { Unanswered } from './unanswered.js';
import { nodeCallStart, publishNodeCall, publishNodeCallError } from './diagnostics.js';

/** Told about every master-level failure (the master set turns it into events and diagnostics). */
export type NodeErrorListener = (node: Node, error: Error) => void;

/**
 * One master: its connection (through a Transport), its coalescer, and how its replies become
 * votes. Its unanswered calls and their deadlines live in `Unanswered`, NOSCRIPT recovery in
 * `ScriptReplay`.
 */
export class Node implements Outlet, ReplayTarget {
  readonly transport: Transport;
  /** The client as the caller gave it (or as pipelock opened it), for `Redlock.clients` and stats. */
  readonly client: MasterClient;
  /** The last failure seen on this master (for `Redlock.ready()` and health reports). */
  lastError: Error | undefined;
  inflight = 0;
  readonly #coalescer: Coalescer;
  readonly #unanswered: Unanswered;
  readonly #replay: ScriptReplay;
  readonly #onError: NodeErrorListener;
  readonly #unsubscribe: () => void;
  /** Whether the connection was ready once: before that, commands wait in the client's offline queue. */
  #everReady: boolean;

  constructor(
    readonly index: number,
    transport: Transport,
    client: MasterClient,
    readonly owned: boolean,
    chunkSize: number,
    coalesce: boolean,
    onError: NodeErrorListener,
    deadlines: Deadlines,
  ) {
    this.transport = transport;
    this.client = client;
    this.#coalescer = new Coalescer(this, chunkSize, coalesce);
    this.#unanswered = new Unanswered(index, deadlines);
    this.#replay = new ScriptReplay(this);
    this.#onError = onError;
    this.#everReady = transport.isReady;
    this.#unsubscribe = transport.onReady(this.#onReady);
    if (transport.isReady) this.#preload();
  }

  get name(): string {
    return this.transport.name;
  }

  detach(): void {
    this.#unsubscribe();
  }

  enqueue(op: Attempt): void {
    if (this.#unanswered.stalled) op.discount(this.index);
    this.#coalescer.enqueue(op);
  }

  /** Deadline scan of this master's unanswered calls (see Unanswered.expire). */
  expire(now: number): number {
    return this.#unanswered.expire(now);
  }

  readonly #onReady = (): void => {
    this.#everReady = true;
    this.#unanswered.stalled = false;
    this.#preload();
  };

  /** SCRIPT LOAD at connect and at every reconnect, so EVALSHA rarely meets NOSCRIPT. */
  #preload(): void {
    this.transport.send(scriptLoadArgs()).then(
      (sha) => {
        if (sha !== BATCH_SHA) this.report(new UnexpectedReplyError(this.name, sha));
      },
      (error: unknown) => { this.report(asError(error)); },
    );
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
      this.#unanswered.add(batch);
      if (!this.#replay.hold(batch)) this.dispatch(batch);
    }
  }

  dispatch(batch: Batch): void {
    this.inflight++;
    const sent = nodeCallStart();
    this.transport.send(batch.args).then(
      (reply) => {
        this.inflight--;
        publishNodeCall(this.index, this.name, sent, batch.ops.length);
        this.#onReply(batch, reply);
      },
      (error: unknown) => {
        this.inflight--;
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
    this.#unanswered.answered(batch);
    const ops = batch.ops;
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

  #unexpected(reply: unknown): Error {
    const error = new UnexpectedReplyError(this.name, reply);
    this.report(error);
    return error;
  }
}
