import { Attempt, PENDING } from './attempt.js';
import { UNDECIDED } from './quorum.js';
import type { Batch } from './coalescer.js';
import { answerAt, isCallReply } from '../protocol/calls.js';
import { nativeReply } from '../protocol/native.js';
import { undoOf, type OpCode } from '../protocol/opcodes.js';
import type { Transport } from '../transport/transport.js';

/** The method by which an attempt's context says whether the keys it won are still held. */
export const kKeysHeld = Symbol('pipelock.keysHeld');

/** A won acquisition's Lock: whether its keys are still held here, by it or by what took them over. */
export interface KeysHolder {
  [kKeysHeld](): boolean;
}

/**
 * Whether an attempt's context (acquire sets the Lock it became) still holds its keys. Not the
 * Lock's own validity: extend() replaces a Lock (the old one reads 0) and release() may pass its
 * keys to a waiter, while the token on the masters is the same (mutex seed 4381 of the simulation).
 */
function stillHeld(context: unknown): boolean {
  return typeof context === 'object' && context !== null && kKeysHeld in context && (context as KeysHolder)[kKeysHeld]();
}

/** Releases kept for a stalled master (see defer): past this many, their keys expire with their TTL. */
const kMaxDeferred = 4096;

/** What a master owes the keyspace: owner-checked deletes of late grants, and releases not sent while it stalled. */
export class Leftovers {
  /** Deletes of late keys (late) waiting for the connection to be ready. */
  #afterReady: Attempt[] | undefined;
  /** Releases not sent to this stalled master, to be sent once it answers in time or reconnects. */
  #deferred: Attempt[] | undefined;

  constructor(
    readonly index: number,
    readonly transport: Transport,
    readonly coalescer: { enqueue(op: Attempt): void },
  ) {}

  /** The late keys' deletes kept while the connection was not ready, now that it is. */
  takeAfterReady(): readonly Attempt[] {
    const later = this.#afterReady;
    this.#afterReady = undefined;
    return later ?? [];
  }

  /**
   * A release not sent to this stalled master may be of keys it holds (it granted them in time
   * before it stalled again): its owner-checked delete is sent here once the stall is over, rather
   * than leave them to their TTL. Bounded: a stall of the main job sheds thousands a second.
   */
  defer(op: Attempt): void {
    const deferred = (this.#deferred ??= []);
    if (deferred.length < kMaxDeferred) deferred.push(op);
  }

  sendDeferred(): void {
    const deferred = this.#deferred;
    this.#deferred = undefined;
    if (deferred === undefined) return;
    for (const op of deferred) {
      const undo = this.#undo(op.opcode, op.keys, op);
      undo.target = op.target;
      undo.extra = op.extra;
      this.coalescer.enqueue(undo);
    }
  }

  /** `opcode` over `keys` under `op`'s token, on this master only: nobody waits for its decision. */
  #undo(opcode: OpCode, keys: readonly string[], op: Attempt): Attempt {
    const undo = new Attempt(opcode, keys, op.token, '0', 1, performance.now(), op.budget, true, op.votes.length);
    for (let node = 0; node < op.votes.length; node++) if (node !== this.index) undo.skip(node);
    return undo;
  }

  /**
   * A batch answered after a connection error or past a stalled master's budget: what it granted was never counted
   * in a quorum, so it is deleted here, owner-checked (docs/decisions/0003).
   */
  late(batch: Batch, reply: unknown): void {
    const ops = batch.ops;
    for (let i = 0; i < ops.length; i++) {
      const op = ops[i]!;
      // The key of a won attempt whose lock is still held holds that lock's token: an extension of
      // the lock sent after it on this connection may have found it and counted this master in its
      // quorum, so deleting it would take a counted key from a held lock. The lock's release
      // removes it; the key of a lock already let go is undone as any late grant.
      if (op.won && stillHeld(op.context)) continue;
      // A vote still awaited counts as it settles, and a lost attempt's undo comes after it. Not so
      // for a resent call (NOSCRIPT, a fallback): its undo may have gone out before it, so once its
      // attempt is decided, a grant it makes now is undone here.
      if (op.votes[this.index] === PENDING && (!batch.replayed || op.decision === UNDECIDED)) continue;
      const value = !batch.native ? (isCallReply(reply, ops.length) ? answerAt(reply, ops.length, i) : 0)
        : nativeReply(batch.commands === undefined ? reply : Array.isArray(reply) ? reply[i] : undefined, op.keys.length) ?? 0;
      if (typeof value !== 'number' || value <= 0) continue;
      const what = undoOf(op.opcode, op.keys, op.target, value);
      if (what === undefined) continue;
      const undo = this.#undo(what.opcode, what.keys, op);
      // The reply can come before 'ready' (see the constructor), when sends still fail at once.
      if (this.transport.isReady) this.coalescer.enqueue(undo);
      else (this.#afterReady ??= []).push(undo);
    }
  }
}
