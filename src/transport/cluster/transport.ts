import { setTimeout as delay } from 'node:timers/promises';
import type { OpArgs } from '../../protocol/opcodes.js';
import { NodeUnavailableError, UnexpectedReplyError } from '../../errors.js';
import type { MasterClient } from '../../clients.js';
import { asError } from '../../util/checks.js';
import { answersOf, callArgs, scriptBySha, scriptBySource } from '../../protocol/calls.js';
import type { Call, Transport } from '../transport.js';
import { slotOf } from './slots.js';

/** The commands sent through `send` whose first argument is their one key. */
const KEYED: ReadonlySet<string> = new Set(['SET', 'DELIFEQ', 'DELEX', 'TYPE', 'PTTL', 'GET']);

/** How long to wait before resending a call refused with TRYAGAIN (a slot mid-migration). */
const kTryAgainMs = 10;

/**
 * A Redis Cluster as one Redlock member: each tick's batch is split by hash slot, one EVALSHA per slot to its shard,
 * so a call runs whole or is refused before it runs (CROSSSLOT forbids more). Redirections are followed, TRYAGAIN
 * resent, NOSCRIPT resent as EVAL; what still fails is that operation's failure (docs/decisions/0012,
 * "cluster/transport.ts"). Subclasses adapt one client library.
 */
export abstract class ClusterTransport implements Transport {
  abstract readonly name: string;
  abstract readonly client: MasterClient;
  abstract readonly isOpen: boolean;
  abstract readonly isReady: boolean;
  abstract onReady(fn: () => void): () => void;
  abstract onError(fn: (error: Error) => void): () => void;
  abstract close(graceMs: number, keepGiven?: boolean): Promise<void>;
  /** Sends one command to the shard owning `key`'s slot (any node without a key), following MOVED and ASK. */
  protected abstract route(key: string | undefined, args: readonly string[]): Promise<unknown>;
  /** `host:port` of the shard owning `slot` when its connection was ready once and dropped; else undefined. */
  protected abstract downShard(slot: number): string | undefined;
  /** Sends one command to every master. */
  protected abstract everyMaster(args: readonly string[]): Promise<unknown[]>;
  /** Resolves once the client is connected; NodeUnavailableError when `deadline` comes first or it was closed. */
  protected abstract connected(deadline: number): Promise<void>;

  /** SCRIPT LOAD goes to every master and answers the SHA only if all did; anything else is routed by no key. */
  async send(args: readonly string[]): Promise<unknown> {
    // A command on one key (a capability probe, a foreign key's TYPE) goes to the shard owning it.
    if (KEYED.has(args[0]!)) return this.route(args[1], args);
    // MSETEX numkeys key value …: its first key after the count (the probe's; a lock's keys share a slot).
    if (args[0] === 'MSETEX') return this.route(args[2], args);
    if (args[0] !== 'SCRIPT') return this.route(undefined, args);
    const replies = await this.everyMaster(args);
    const sha = scriptBySource(args[2])?.sha;
    return replies.find((reply) => reply !== sha) ?? sha;
  }

  /**
   * Sends a batch split by slot. Resolves with what the batch's reply would have been: for a native
   * command its reply; otherwise one entry per operation, a number or the Error of that operation's call.
   */
  sendBatch(batch: Call): Promise<unknown> {
    const ops = batch.ops;
    if (batch.native) return this.#call(ops[0]!.keys[0]!, batch.args, batch.deadline, true);
    const slots = new Array<number>(ops.length);
    let mixed = false;
    for (let i = 0; i < ops.length; i++) {
      slots[i] = slotOf(ops[i]!.keys[0]!);
      if (slots[i] !== slots[0]) mixed = true;
    }
    if (!mixed) return this.#slot(ops, batch.args, batch.deadline);
    const groups = new Map<number, number[]>();
    for (let i = 0; i < ops.length; i++) {
      const group = groups.get(slots[i]!);
      if (group === undefined) groups.set(slots[i]!, [i]);
      else group.push(i);
    }
    const out = new Array<unknown>(ops.length);
    const calls: Promise<void>[] = [];
    for (const group of groups.values()) {
      const sub = group.map((i) => ops[i]!);
      calls.push(this.#slot(sub, callArgs(sub, 0, sub.length), batch.deadline).then((replies) => {
        for (let k = 0; k < group.length; k++) out[group[k]!] = replies[k];
      }));
    }
    return Promise.all(calls).then(() => out);
  }

  /**
   * One slot's operations as one call: per operation its integer or the call's Error. A call split across a migrating
   * slot is refused with TRYAGAIN until the migration ends, so it is split into one call per operation.
   */
  async #slot(ops: readonly OpArgs[], args: readonly string[], deadline: number): Promise<unknown[]> {
    try {
      const reply = await this.#call(ops[0]!.keys[0]!, args, deadline, ops.length === 1);
      const answers = answersOf(reply, ops.length);
      if (answers !== undefined) return answers;
      const error = new UnexpectedReplyError(this.name, reply);
      return ops.map(() => error);
    } catch (error) {
      if (ops.length > 1 && isTryAgain(error)) {
        const parts = await Promise.all(ops.map((op) => this.#slot([op], callArgs([op], 0, 1), deadline)));
        return parts.flat();
      }
      const failure = asError(error);
      return ops.map(() => failure);
    }
  }

  /** One call routed by `key`, resent after NOSCRIPT (once, as EVAL) and, with `retry`, TRYAGAIN (until `deadline`). */
  async #call(key: string, args: readonly string[], deadline: number, retry: boolean): Promise<unknown> {
    // Before its first connect the cluster client refuses commands ("The client is offline")
    // where a standalone client would queue them: wait for it, within the deadline.
    if (!this.isReady) await this.connected(deadline);
    for (;;) {
      // A shard whose connection dropped answers nothing: fail its operations at once rather than
      // let its client queue them offline (and write them, unowned, after a reconnect).
      // A connection still opening for the first time is waited for, as a standalone master's is.
      const down = this.downShard(slotOf(key));
      if (down !== undefined) throw new NodeUnavailableError(`${this.name} shard ${down}`);
      try {
        return await this.route(key, args);
      } catch (error) {
        const message = error instanceof Error ? error.message : '';
        const script = args[0] === 'EVALSHA' ? scriptBySha(args[1]) : undefined;
        if (message.startsWith('NOSCRIPT') && script !== undefined) {
          args = ['EVAL', script.source, ...args.slice(2)];
          continue;
        }
        if (retry && message.startsWith('TRYAGAIN') && performance.now() + kTryAgainMs < deadline) {
          await delay(kTryAgainMs);
          continue;
        }
        throw error;
      }
    }
  }
}

function isTryAgain(error: unknown): boolean {
  // ioredis retries TRYAGAIN itself, then fails with "Too many Cluster redirections. Last error: … TRYAGAIN …".
  return error instanceof Error && error.message.includes('TRYAGAIN');
}
