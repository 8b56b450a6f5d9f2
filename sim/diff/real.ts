/**
 * The real side of the differential: a redis-server, reached as pipelock reaches it (@redis/client,
 * RESP3), with two watch connections in tracking mode. Each command runs inside MULTI after a TIME,
 * so the simulated master can be given the very clock the command ran at (to the µs, give or take
 * the few µs between the two inside one EXEC).
 */
import { RedisClient } from '@redis/client';
import { parseScore } from '../master/numbers.js';
import type { KeyDump } from '../master/index.js';
import { kWatches, type Conn, type Step } from './steps.js';
import { normalize, type Normal } from './compare.js';

const create = RedisClient.factory({});
type Client = ReturnType<typeof create>;

/** Reads the whole keyspace in one script: atomic, on one frozen clock, expiring nothing (KEYS skips expired keys). */
const kDumpScript = `local out = {}
for _, k in ipairs(redis.call('KEYS', '*')) do
  local t = redis.call('TYPE', k).ok
  local v
  if t == 'string' then v = redis.call('GET', k)
  elseif t == 'zset' then v = redis.call('ZRANGE', k, 0, -1, 'WITHSCORES')
  elseif t == 'hash' then v = redis.call('HGETALL', k)
  elseif t == 'list' then v = redis.call('LRANGE', k, 0, -1)
  else v = redis.call('SMEMBERS', k) end
  out[#out + 1] = {k, t, v, redis.call('PEXPIRETIME', k)}
end
return out`;

export interface RealResult {
  readonly reply: Normal;
  /** The server's clock just before the command, µs; undefined when the transaction was refused (a queueing error). */
  readonly timeUs: number | undefined;
  /** µs from that reading to one just after the command: when the command read the clock, at the latest. */
  readonly spanUs: number;
}

export class RealSide {
  readonly pushes: Record<(typeof kWatches)[number], (string | null)[]> = { w0: [], w1: [] };
  #clients: Record<Conn | 'inspect', Client> | undefined;
  /** The last clock reading, and performance.now() when it was taken. */
  #lastUs = 0;
  #lastAt = 0;

  constructor(readonly url: string) {}

  async open(): Promise<void> {
    const plain = (): Client => create({ url: this.url, socket: { reconnectStrategy: false } });
    const watch = (name: 'w0' | 'w1'): Client => {
      const client = create({ url: this.url, RESP: 3, emitInvalidate: true, socket: { reconnectStrategy: false } } as Parameters<typeof create>[0]);
      client.on('invalidate', (key: Buffer | null) => {
        this.pushes[name].push(key === null ? null : key.toString());
      });
      return client;
    };
    const clients = { main: plain(), foreign: plain(), inspect: plain(), w0: watch('w0'), w1: watch('w1') };
    await Promise.all(Object.values(clients).map((client) => client.connect()));
    // Keys expire on access only, as in the simulated master: Redis's background expiry would
    // push invalidations at times of its own.
    await clients.inspect.sendCommand(['DEBUG', 'SET-ACTIVE-EXPIRE', '0']);
    this.#clients = clients;
  }

  get #c(): Record<Conn | 'inspect', Client> {
    if (this.#clients === undefined) throw new Error('the real side is not open');
    return this.#clients;
  }

  /** Empty keyspace and script cache, both watches tracking, nothing pushed. */
  async reset(): Promise<void> {
    const c = this.#c;
    await Promise.all(kWatches.map((name) => c[name].sendCommand(['CLIENT', 'TRACKING', 'on'])));
    await c.foreign.sendCommand(['FLUSHALL']);
    await c.foreign.sendCommand(['SCRIPT', 'FLUSH']);
    await this.drain();
    this.pushes.w0.length = 0;
    this.pushes.w1.length = 0;
    await this.clock();
  }

  async run(step: Step): Promise<RealResult> {
    const c = this.#c;
    if (step.kind === 'cmd') return this.#command(c[step.conn], step.args);
    if (step.kind === 'flush') return { reply: normalize(await c.foreign.sendCommand(['FLUSHALL'])), timeUs: await this.clock(), spanUs: 0 };
    if (step.kind === 'plant') {
      await c.foreign.sendCommand(['DEL', step.key]);
      const value = step.value;
      if (value.type === 'list') await c.foreign.sendCommand(['RPUSH', step.key, ...value.value]);
      else if (value.type === 'set') await c.foreign.sendCommand(['SADD', step.key, ...value.value]);
      else throw new Error(`plant ${value.type} with a command step`);
      return { reply: null, timeUs: await this.clock(), spanUs: 0 };
    }
    throw new Error('a sleep step is not run on a side');
  }

  async #command(client: Client, args: readonly string[]): Promise<RealResult> {
    const [, , inner, , exec] = await Promise.allSettled([
      client.sendCommand(['MULTI']), client.sendCommand(['TIME']), client.sendCommand([...args]), client.sendCommand(['TIME']), client.sendCommand(['EXEC']),
    ]);
    if (exec.status === 'rejected') {
      // Refused while queueing (unknown command, arity): the command's own error is its reply.
      return { reply: normalize(inner.status === 'rejected' ? inner.reason : exec.reason), timeUs: undefined, spanUs: 0 };
    }
    const [before, reply, after] = exec.value as unknown as [unknown, unknown, unknown];
    const timeUs = this.#record(before);
    return { reply: normalize(reply), timeUs, spanUs: this.#record(after) - timeUs };
  }

  /** Waits until every push sent so far has reached the watches (a PING behind them on each). */
  async drain(): Promise<void> {
    const c = this.#c;
    await Promise.all(kWatches.map((name) => c[name].sendCommand(['PING'])));
  }

  /** The keyspace, and the server's clock it was read at (µs). */
  async dump(): Promise<{ keys: KeyDump[]; timeUs: number }> {
    const client = this.#c.inspect;
    const [clock, rows] = await client.multi().addCommand(['TIME']).addCommand(['EVAL', kDumpScript, '0']).exec() as unknown as [unknown, [string, string, string | string[], number][]];
    const timeUs = this.#record(clock);
    const keys = rows.map(([key, type, value, expireTime]) => toDump(key, type, value, expireTime < 0 ? null : expireTime));
    return { keys: keys.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)), timeUs };
  }

  /** The server's clock now, µs. */
  async clock(): Promise<number> {
    return this.#record(await this.#c.inspect.sendCommand(['TIME']));
  }

  /** Where the server's clock should be now, ms (from the last reading). */
  estimateMs(): number {
    return (this.#lastUs + (performance.now() - this.#lastAt) * 1000) / 1000;
  }

  async close(): Promise<void> {
    const clients = this.#clients;
    this.#clients = undefined;
    if (clients !== undefined) await Promise.all(Object.values(clients).map((client) => client.close()));
  }

  #record(clock: unknown): number {
    const [seconds, micros] = clock as [string, string];
    this.#lastUs = Number(seconds) * 1e6 + Number(micros);
    this.#lastAt = performance.now();
    return this.#lastUs;
  }
}

function toDump(key: string, type: string, value: string | string[], expireAt: number | null): KeyDump {
  const list = Array.isArray(value) ? value : [];
  switch (type) {
    case 'string':
      return { key, type, value: value as string, expireAt };
    case 'zset': {
      const pairs: (readonly [string, number])[] = [];
      for (let i = 0; i < list.length; i += 2) pairs.push([list[i]!, parseScore(list[i + 1]!) ?? Number.NaN]);
      return { key, type, value: pairs, expireAt };
    }
    case 'hash': {
      const pairs: (readonly [string, string])[] = [];
      for (let i = 0; i < list.length; i += 2) pairs.push([list[i]!, list[i + 1]!]);
      return { key, type, value: pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)), expireAt };
    }
    case 'list':
      return { key, type, value: list, expireAt };
    default:
      return { key, type: 'set', value: [...list].sort(), expireAt };
  }
}

