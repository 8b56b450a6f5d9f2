import type { RedisClientOptions } from '@redis/client';
import { setTimeout as delay } from 'node:timers/promises';
import { kMaxTimerMs } from '../alarm.js';
import { loadRedisClient, NO_COMMAND_TIMEOUT } from '../client.js';
import type { Attempt } from '../attempt.js';
import type { Batch } from '../coalescer.js';
import { NodeUnavailableError, UnexpectedReplyError } from '../errors.js';
import type { ClusterShardNode, RedisClusterClient } from '../redis-client.js';
import { asError } from '../script-replay.js';
import { BATCH_SCRIPT, BATCH_SHA, batchArgs } from '../scripts.js';
import type { Transport } from '../transport.js';
import { slotOf } from './slots.js';

/** Shard connections that were ready once: not ready now means dropped, not still connecting. */
const seenReady = new WeakSet<object>();

/** How long to wait before resending a call refused with TRYAGAIN (a slot mid-migration). */
const kTryAgainMs = 10;

/**
 * A Redis Cluster as one Redlock member. The coalescer still cuts one batch per tick for the
 * member; here the batch is split by hash slot and each slot's operations go out as one EVALSHA to
 * the shard owning it. All calls of one tick to one shard leave in one corked write (node-redis
 * `#scheduleWrite`).
 *
 * Why per slot and not per shard: Redis checks a script's declared keys before running it and
 * refuses keys of two slots (CROSSSLOT), even on one shard and even with
 * `#!lua flags=allow-cross-slot-keys` (measured, redis-server 7.0.15); keys passed in ARGV instead
 * are checked only when touched, so a key of a slot that moved fails mid-script and the writes
 * made before it stay. With declared keys of one slot, a call either runs whole on the node
 * owning the slot or is refused before it runs (MOVED, ASK, TRYAGAIN, CLUSTERDOWN): an operation is
 * never half-applied, and a refused call can be resent as it is.
 *
 * Redirections: @redis/client's cluster `sendCommand` follows MOVED (refreshing its slot table)
 * and ASK (with ASKING), up to `maxCommandRedirections`; TRYAGAIN is resent here after
 * kTryAgainMs while the batch's deadline allows. NOSCRIPT (a shard restarted, or the target of a
 * migration never saw the script) is resent as EVAL, which also caches the script there.
 * Whatever still fails is that operation's failure on this member, never a silent loss.
 */
export class ClusterTransport implements Transport {
  readonly name: string;
  readonly keyPrefix = '';
  readonly #cluster: RedisClusterClient;

  constructor(cluster: RedisClusterClient, index: number, name?: string) {
    this.#cluster = cluster;
    this.name = name ?? clusterName(cluster, index);
  }

  /** Opens a cluster client from seed URLs and connects it; `onError` hears its errors. */
  static open(seeds: readonly string[], index: number, clientOptions: RedisClientOptions | undefined, onError: (error: Error) => void): ClusterTransport {
    const { createCluster } = loadRedisClient(seeds[0]!);
    const cluster = createCluster({
      rootNodes: seeds.map((url) => ({ url })),
      defaults: {
        ...clientOptions,
        commandOptions: { timeout: 0 },
        socket: { reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, 2000), ...clientOptions?.socket },
      } as never,
    }) as unknown as RedisClusterClient;
    const transport = new ClusterTransport(cluster, index, `cluster(${seeds.map(hostPort).join(',')})`);
    cluster.on('error', onError);
    cluster.connect().catch((error: unknown) => {
      onError(asError(error));
    });
    return transport;
  }

  get client(): RedisClusterClient {
    return this.#cluster;
  }

  get isOpen(): boolean {
    return this.#cluster.isOpen;
  }

  get isReady(): boolean {
    return this.#cluster.isReady;
  }

  /** SCRIPT LOAD goes to every master (a script call may land on any); anything else is routed by no key. */
  async send(args: readonly string[]): Promise<unknown> {
    const cluster = this.#cluster;
    if (args[0] !== 'SCRIPT') return cluster.sendCommand(undefined, false, [...args], NO_COMMAND_TIMEOUT);
    const replies = await Promise.all(cluster.masters.map(async (node) => (await cluster.nodeClient(node)).sendCommand(args, NO_COMMAND_TIMEOUT)));
    return replies.find((reply) => reply !== BATCH_SHA) ?? BATCH_SHA;
  }

  /**
   * Sends a batch split by slot. Resolves with what the batch's reply would have been: for SET NX
   * its reply; otherwise one entry per operation, a number or the Error of that operation's call.
   */
  sendBatch(batch: Batch): Promise<unknown> {
    const ops = batch.ops;
    if (batch.setNx) return this.#call(ops[0]!.keys[0]!, batch.args, batch.deadline, true);
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
      calls.push(this.#slot(sub, batchArgs(BATCH_SHA, sub, 0, sub.length), batch.deadline).then((replies) => {
        for (let k = 0; k < group.length; k++) out[group[k]!] = replies[k];
      }));
    }
    return Promise.all(calls).then(() => out);
  }

  /**
   * One slot's operations as one call: per operation its integer or the call's Error. While a slot
   * migrates, a call whose keys are split between source and target is refused with TRYAGAIN
   * (cluster-spec "ASK redirection": multi-key operations on a migrating slot), and stays refused
   * until the migration ends: such a call is split into one call per operation, each of which
   * runs whole on one side (or is redirected there with ASK).
   */
  async #slot(ops: readonly Attempt[], args: readonly string[], deadline: number): Promise<unknown[]> {
    try {
      const reply = await this.#call(ops[0]!.keys[0]!, args, deadline, ops.length === 1);
      if (Array.isArray(reply) && reply.length === ops.length) return reply as unknown[];
      const error = new UnexpectedReplyError(this.name, reply);
      return ops.map(() => error);
    } catch (error) {
      if (ops.length > 1 && isTryAgain(error)) {
        const parts = await Promise.all(ops.map((op) => this.#slot([op], batchArgs(BATCH_SHA, [op], 0, 1), deadline)));
        return parts.flat();
      }
      const failure = asError(error);
      return ops.map(() => failure);
    }
  }

  /** One call routed by `key`, resent after NOSCRIPT (once, as EVAL) and, with `retry`, TRYAGAIN (until `deadline`). */
  async #call(key: string, args: readonly string[], deadline: number, retry: boolean): Promise<unknown> {
    const cluster = this.#cluster;
    // Before its first connect the cluster client refuses commands ("The client is offline")
    // where a standalone client would queue them: wait for it, within the deadline.
    if (!cluster.isReady) await this.#connected(deadline);
    for (;;) {
      // A shard whose connection dropped answers nothing: fail its operations at once rather than
      // let its client queue them offline (and write them, unowned, after a reconnect).
      // A connection still opening for the first time is waited for, as a standalone master's is.
      const shard = cluster.slots[slotOf(key)]?.master;
      const connection = shard?.client;
      if (connection !== undefined) {
        if (connection.isReady) seenReady.add(connection);
        else if (seenReady.has(connection)) throw new NodeUnavailableError(`${this.name} shard ${hostPort(shard!)}`);
      }
      try {
        return await cluster.sendCommand(key, false, args as string[], NO_COMMAND_TIMEOUT);
      } catch (error) {
        const message = error instanceof Error ? error.message : '';
        if (message.startsWith('NOSCRIPT') && args[0] === 'EVALSHA') {
          args = ['EVAL', BATCH_SCRIPT, ...args.slice(2)];
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

  /** Resolves once the cluster client is connected; NodeUnavailableError when `deadline` comes first or it was closed. */
  async #connected(deadline: number): Promise<void> {
    const cluster = this.#cluster;
    if (cluster.isOpen) {
      let listener: (() => void) | undefined;
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        listener = resolve;
        cluster.on('connect', resolve);
        timer = setTimeout(resolve, Math.max(0, Math.min(deadline - performance.now(), kMaxTimerMs)));
      });
      clearTimeout(timer);
      cluster.off('connect', listener!);
    }
    if (!cluster.isReady) throw new NodeUnavailableError(this.name);
  }

  onReady(fn: () => void): () => void {
    // The cluster client emits 'connect' once its slot table is loaded (cluster-slots.js connect()).
    this.#cluster.on('connect', fn);
    return () => this.#cluster.off('connect', fn);
  }

  onError(fn: (error: Error) => void): () => void {
    this.#cluster.on('error', fn);
    return () => this.#cluster.off('error', fn);
  }

  async close(graceMs: number, keepGiven = false): Promise<void> {
    const cluster = this.#cluster;
    if (keepGiven || !cluster.isOpen) return;
    let timer: NodeJS.Timeout | undefined;
    const closed = await Promise.race([
      cluster.close().then(() => true, () => false),
      new Promise<false>((resolve) => (timer = setTimeout(resolve, graceMs, false))),
    ]);
    clearTimeout(timer);
    if (!closed) cluster.destroy();
  }
}

function isTryAgain(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('TRYAGAIN');
}

/** `cluster(host:port,…)` from the masters the client knows, for messages. */
function clusterName(cluster: RedisClusterClient, index: number): string {
  const masters = cluster.masters;
  return masters.length === 0 ? `clusters[${index}]` : `cluster(${masters.map(hostPort).join(',')})`;
}

function hostPort(node: ClusterShardNode | string): string {
  if (typeof node !== 'string') return `${node.host}:${node.port}`;
  try {
    const url = new URL(node);
    return `${url.hostname}:${url.port || '6379'}`;
  } catch {
    return node;
  }
}
