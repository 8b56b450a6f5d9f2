import type { Random } from '../diff/random.js';
import { SimRedisClient } from './client.js';
import type { Host } from './host.js';
import type { History } from './history.js';
import type { Proc } from './process.js';

/** How slow the seed made the network: most messages fast, some late (a slow link, a full buffer). */
export interface Latency {
  readonly minMs: number;
  readonly maxMs: number;
  /** The chance a message takes a long way. */
  readonly lateChance: number;
  readonly lateMaxMs: number;
}

/**
 * The network between simulated processes and masters: each message's delay from the seed (the
 * connection keeps its FIFO order, client.ts), partitions that hold every message between a
 * process and a master until they heal (TCP retransmits; nothing is reordered within a connection),
 * and the connections it can drop.
 */
export class Network {
  readonly clients: SimRedisClient[] = [];
  /** `proc:host` → world instant the partition heals. */
  readonly #partitions = new Map<string, number>();

  constructor(readonly random: Random, public latency: Latency, readonly history: History) {}

  client(proc: Proc, host: Host, resp: 2 | 3, tracking: boolean): SimRedisClient {
    const client = new SimRedisClient(this, proc, host, resp, tracking);
    this.clients.push(client);
    return client;
  }

  /** When a message sent now between `proc` and `host` arrives (before FIFO ordering). */
  arrival(proc: Proc, host: Host): number {
    const { minMs, maxMs, lateChance, lateMaxMs } = this.latency;
    const r = this.random;
    const delay = r.chance(lateChance) ? maxMs + r.next() / 2 ** 32 * lateMaxMs : minMs + r.next() / 2 ** 32 * (maxMs - minMs);
    const now = proc.world.now;
    const heals = this.#partitions.get(`${proc.id}:${host.index}`) ?? 0;
    return Math.max(now, heals) + delay;
  }

  reconnectDelay(): number {
    return 20 + this.random.int(80);
  }

  partition(proc: Proc, host: Host, ms: number): void {
    this.#partitions.set(`${proc.id}:${host.index}`, proc.world.now + ms);
  }

  trace(proc: Proc, host: Host, dir: string, what: unknown): void {
    this.history.net(proc.id, host.index, dir, what);
  }
}
