/**
 * The ceilings: the Redis work of a Redlock cycle with no lock logic (no validity, no drift, no
 * stats, no typed errors), on plain @redis/client. Per lock: `SET key token NX PX ttl` to every
 * master, then an owner-checked delete (EVALSHA of a compare-and-delete) to every master.
 *
 *   raw-all        waits for all N replies of each step
 *   raw-quorum     returns at the quorum (floor(N/2)+1 for, or a quorum impossible)
 *   raw-coalesced  the quorum ceiling with pipelock's coalescing: every SET and delete queued on a
 *                  master in one tick goes out as one EVALSHA of a multi-key script
 *
 * Like pipelock, every command is sent with @redis/client's per-command timeout off
 * (`{ timeout: 0 }`): by default 6.x arms an AbortSignal.timeout per command, which would make the
 * ceiling a slower yardstick than the library it measures.
 */
import { createHash } from 'node:crypto';
import { RedisClient as RedisClientClass } from '@redis/client';
import { REFUSED, type Contender, type DrainableContender } from './contender.js';

const NO_TIMEOUT = Object.freeze({ timeout: 0 });

export const DEL_IF_EQUAL = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;
const DEL_SHA = createHash('sha1').update(DEL_IF_EQUAL).digest('hex');

/** ARGV: (op, token, ttl) per key; op S = SET NX PX, D = compare-and-delete. One 0/1 per key. */
export const COALESCED = `local out = {}
for i = 1, #KEYS do
  local a = 3 * i - 2
  if ARGV[a] == 'S' then
    out[i] = redis.call('SET', KEYS[i], ARGV[a + 1], 'NX', 'PX', ARGV[a + 2]) and 1 or 0
  elseif redis.call('GET', KEYS[i]) == ARGV[a + 1] then
    out[i] = redis.call('DEL', KEYS[i])
  else
    out[i] = 0
  end
end
return out`;
const COALESCED_SHA = createHash('sha1').update(COALESCED).digest('hex');

interface Client {
  sendCommand(args: readonly string[], options?: { timeout?: number }): Promise<unknown>;
  connect(): Promise<unknown>;
  destroy(): void;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** A PING on every connection: its reply comes after the replies to everything sent before it. */
async function drainAll(clients: readonly Client[]): Promise<void> {
  await Promise.all(clients.map((client) => client.sendCommand(['PING'], NO_TIMEOUT)));
}

async function connectAll(urls: readonly string[]): Promise<Client[]> {
  // One client class for every URL: createClient() would rebuild it per options object (~40 ms each).
  const factory = RedisClientClass.factory({}) as unknown as (options: object) => Client;
  const clients = urls.map((url) => factory({ url, commandOptions: { timeout: 0 } }));
  for (const client of clients) client.on('error', () => undefined);
  await Promise.all(clients.map((client) => client.connect()));
  await Promise.all(clients.map((client) => client.sendCommand(['SCRIPT', 'LOAD', DEL_IF_EQUAL])));
  await Promise.all(clients.map((client) => client.sendCommand(['SCRIPT', 'LOAD', COALESCED])));
  return clients;
}

const PENDING = 0;
const YES = 1;
const NO = 2;

/** One step (SET everywhere, or delete everywhere) of one lock: a tally of the masters' replies. */
class Round {
  readonly votes: Uint8Array;
  yes = 0;
  no = 0;
  decided = false;
  readonly done: Promise<boolean>;
  #resolve!: (won: boolean) => void;

  constructor(n: number, readonly need: number, readonly all: boolean) {
    this.votes = new Uint8Array(n);
    this.done = new Promise((resolve) => (this.#resolve = resolve));
  }

  settle(node: number, yes: boolean): void {
    if (this.votes[node] !== PENDING) return;
    this.votes[node] = yes ? YES : NO;
    if (yes) this.yes++;
    else this.no++;
    if (this.decided) return;
    const n = this.votes.length;
    if (this.all ? this.yes + this.no === n : this.yes >= this.need || this.no > n - this.need) {
      this.decided = true;
      this.#resolve(this.yes >= this.need);
    }
  }
}

let tokens = 0;
const tokenPrefix = `${process.pid.toString(36)}.${Date.now().toString(36)}.`;

interface Held {
  readonly key: string;
  readonly token: string;
}

/** One member as the per-command ceilings see it: a command sent where `key` lives. */
type Send = (key: string, args: readonly string[]) => Promise<unknown>;

/** raw-all and raw-quorum: one command per lock per master. */
export async function rawPerCommand(urls: readonly string[], ttlMs: number, all: boolean): Promise<DrainableContender> {
  const clients = await connectAll(urls);
  return {
    ...perCommand(clients.map((client) => (_key, args) => client.sendCommand(args, NO_TIMEOUT)), ttlMs, all),
    close() {
      for (const client of clients) client.destroy();
      return Promise.resolve();
    },
    drain: () => drainAll(clients),
  };
}

/**
 * raw-quorum on Redis Cluster members (bench:peers' cluster configuration): the same commands,
 * each sent by @redis/client's cluster client to the shard owning the key (it follows MOVED/ASK).
 */
export async function rawPerCommandClusters(members: readonly (readonly string[])[], ttlMs: number, all: boolean): Promise<Contender> {
  const { createCluster } = await import('@redis/client');
  const clusters = members.map((urls) => createCluster({ rootNodes: urls.map((url) => ({ url })) }));
  for (const cluster of clusters) cluster.on('error', () => undefined);
  await Promise.all(clusters.map((cluster) => cluster.connect()));
  // The compare-and-delete may run on any shard: loaded on every master.
  await Promise.all(clusters.flatMap((cluster) => cluster.masters.map(async (node) => (await cluster.nodeClient(node)).sendCommand(['SCRIPT', 'LOAD', DEL_IF_EQUAL]))));
  return {
    ...perCommand(clusters.map((cluster) => (key, args) => cluster.sendCommand(key, false, args as string[], NO_TIMEOUT)), ttlMs, all),
    async close() {
      await Promise.all(clusters.map((cluster) => cluster.close()));
    },
  };
}

function perCommand(members: readonly Send[], ttlMs: number, all: boolean): Omit<Contender, 'close'> {
  const n = members.length;
  const need = (n >>> 1) + 1;
  const ttl = String(ttlMs);

  function send(key: string, args: readonly string[], yes: (reply: unknown) => boolean): Round {
    const round = new Round(n, need, all);
    for (let i = 0; i < n; i++) {
      members[i]!(key, args).then(
        (reply) => { round.settle(i, yes(reply)); },
        () => { round.settle(i, false); },
      );
    }
    return round;
  }
  const isOk = (reply: unknown): boolean => reply === 'OK';
  const isOne = (reply: unknown): boolean => reply === 1;

  return {
    async acquire(key) {
      const token = tokenPrefix + String(tokens++);
      const round = send(key, ['SET', key, token, 'NX', 'PX', ttl], isOk);
      if (await round.done) return { key, token } satisfies Held;
      // Undo wherever the SET may have landed (said yes, or has not answered yet).
      const undo = new Round(n, need, all);
      const args = ['EVALSHA', DEL_SHA, '1', key, token];
      for (let i = 0; i < n; i++) {
        if (round.votes[i] === NO) undo.settle(i, false);
        else members[i]!(key, args).then(() => { undo.settle(i, true); }, () => { undo.settle(i, false); });
      }
      await undo.done;
      return REFUSED;
    },
    async release(handle) {
      const { key, token } = handle as Held;
      await send(key, ['EVALSHA', DEL_SHA, '1', key, token], isOne).done;
    },
  };
}

interface Op {
  readonly set: boolean;
  readonly key: string;
  readonly token: string;
  readonly round: Round;
}

/**
 * raw-coalesced: the quorum ceiling, coalesced per master per tick with pipelock's flush rule
 * (a microtask when nothing is in flight on the master, else setImmediate, which gathers every
 * continuation of the replies just read). No chunking: at most 2 × concurrency keys per call.
 */
export async function rawCoalesced(urls: readonly string[], ttlMs: number): Promise<DrainableContender> {
  const clients = await connectAll(urls);
  const n = clients.length;
  const need = (n >>> 1) + 1;
  const ttl = String(ttlMs);
  const queues: Op[][] = clients.map(() => []);
  const scheduled = new Uint8Array(n);
  const inflight = new Uint32Array(n);
  const flushers = clients.map((_, i) => () => { flush(i); });

  function flush(i: number): void {
    scheduled[i] = 0;
    const ops = queues[i]!;
    queues[i] = [];
    const args = new Array<string>(3 + 4 * ops.length);
    args[0] = 'EVALSHA';
    args[1] = COALESCED_SHA;
    args[2] = String(ops.length);
    let a = 3 + ops.length;
    for (let j = 0; j < ops.length; j++) {
      const op = ops[j]!;
      args[3 + j] = op.key;
      args[a++] = op.set ? 'S' : 'D';
      args[a++] = op.token;
      args[a++] = ttl;
    }
    inflight[i]!++;
    clients[i]!.sendCommand(args, NO_TIMEOUT).then(
      (reply) => {
        inflight[i]!--;
        const replies = reply as number[];
        for (let j = 0; j < ops.length; j++) ops[j]!.round.settle(i, replies[j] === 1);
      },
      () => {
        inflight[i]!--;
        for (const op of ops) op.round.settle(i, false);
      },
    );
  }

  function enqueue(i: number, op: Op): void {
    queues[i]!.push(op);
    if (scheduled[i] === 1) return;
    scheduled[i] = 1;
    if (inflight[i] === 0) queueMicrotask(flushers[i]!);
    else setImmediate(flushers[i]!);
  }

  function send(set: boolean, key: string, token: string, skip?: Uint8Array): Round {
    const round = new Round(n, need, false);
    const op: Op = { set, key, token, round };
    for (let i = 0; i < n; i++) {
      if (skip?.[i] === NO) round.settle(i, false);
      else enqueue(i, op);
    }
    return round;
  }

  return {
    async acquire(key) {
      const token = tokenPrefix + String(tokens++);
      const round = send(true, key, token);
      if (await round.done) return { key, token } satisfies Held;
      await send(false, key, token, round.votes).done;
      return REFUSED;
    },
    async release(handle) {
      const { key, token } = handle as Held;
      await send(false, key, token).done;
    },
    close() {
      for (const client of clients) client.destroy();
      return Promise.resolve();
    },
    drain: () => drainAll(clients),
  };
}
