/**
 * A run: a flush's consecutive native operations on one master, posted as one command each but handed to the
 * master as one Batch (src/engine/coalescer.ts), so the client pays one unanswered entry, one deadline stamp and one
 * reply dispatch per flush, not per operation (docs/decisions/0007-native-commands.md).
 */

import type { Attempt } from './attempt.js';
import type { Batch } from './coalescer.js';
import { nativeReply } from '../protocol/native.js';
import { unexpected } from './replies.js';
import type { Sink, Transport } from '../transport/transport.js';

/** Where a run's outcome goes (the master): its gathered replies, or its failure, with when it was sent (a diagnostics stamp, 0: none). */
export interface RunSink {
  replied(batch: Batch, reply: unknown, sent: number): void;
  failed(batch: Batch, error: unknown, sent: number): void;
}

/**
 * The replies of a run's commands, gathered in order (an error reply in its place) and handed to `sink` once the last
 * has come. Every command failed with one error (the connection dropped: the same Error for each) is the run failing.
 */
export class Gathered implements Sink<number> {
  readonly #replies: unknown[];
  #left: number;
  /** The error of every command so far, while it is one and the same; null once a reply or another error came. */
  #one: Error | null | undefined;

  constructor(readonly sink: RunSink, readonly batch: Batch, readonly sent = 0) {
    this.#left = batch.ops.length;
    this.#replies = new Array<unknown>(this.#left);
  }

  replied(at: number, reply: unknown): void {
    this.#one = null;
    this.#put(at, reply);
  }

  failed(at: number, error: Error): void {
    this.#one = this.#one === undefined || this.#one === error ? error : null;
    this.#put(at, error);
  }

  #put(at: number, reply: unknown): void {
    this.#replies[at] = reply;
    if (--this.#left > 0) return;
    const one = this.#one;
    if (one instanceof Error) this.sink.failed(this.batch, one, this.sent);
    else this.sink.replied(this.batch, this.#replies, this.sent);
  }
}

/** A run's command that failed for its own operation (an error reply), for the master to judge as it would a call's. */
export type RunFailure = (batch: Batch, op: Attempt, at: number, error: Error) => void;

/** How a run's gathered replies settle its operations' votes on master `node`; error replies go to `failed`. */
export function settleRun(batch: Batch, replies: unknown, node: number, name: string, report: (error: Error) => void,
  failed: RunFailure): void {
  const ops = batch.ops;
  if (!Array.isArray(replies) || replies.length !== ops.length) {
    const error = unexpected(name, report, replies);
    for (const op of ops) op.settle(node, error);
    return;
  }
  for (let i = 0; i < ops.length; i++) {
    const reply: unknown = replies[i];
    const op = ops[i]!;
    if (reply instanceof Error) failed(batch, op, i, reply);
    else op.settle(node, nativeReply(reply, op.keys.length) ?? unexpected(name, report, reply));
  }
}

/**
 * Posts a run's commands, which go out in the flush's one write (src/transport/lean/): runs are cut only for a
 * connection that posts (Coalescer's `posts`).
 */
export function postRun(transport: Transport, batch: Batch, sink: RunSink, sent: number): void {
  const gathered = new Gathered(sink, batch, sent);
  const commands = batch.commands!;
  for (let i = 0; i < commands.length; i++) transport.post!(commands[i]!, gathered, i, true);
}
