import { EventEmitter } from 'node:events';
import { RedisReplyError, type Push, type Reply, type SimConnection } from '../master/index.js';
import type { Host } from './host.js';
import type { Network } from './network.js';
import type { Proc } from './process.js';

interface Pending {
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
}

/** What @redis/client rejects pending commands with when its socket closes. */
function socketClosed(): Error {
  return Object.assign(new Error('Socket closed unexpectedly'), { code: 'ECONNRESET' });
}

/**
 * An @redis/client-shaped client (what pipelock's RedisTransport and Watch use of one) for one
 * process and one simulated master, over the simulated network: per connection FIFO both ways
 * (TCP), delays chosen by the network, commands in flight lost or run when the connection drops,
 * 'error' then a reconnect and 'ready', `duplicate()` for the watch's RESP3 tracking connection.
 * The offline queue is not modelled: a command sent while disconnected fails at once.
 */
export class SimRedisClient extends EventEmitter {
  #conn: SimConnection | undefined;
  /** Bumped at every connection change: what was in flight for an older one is lost. */
  #generation = 0;
  #destroyed = false;
  #connecting = false;
  #lastArrival = 0;
  #lastDelivery = 0;
  readonly #pending = new Set<Pending>();
  readonly #tracking: boolean;

  constructor(readonly net: Network, readonly proc: Proc, readonly host: Host, readonly resp: 2 | 3, tracking: boolean) {
    super();
    this.#tracking = tracking;
  }

  get isOpen(): boolean {
    return !this.#destroyed;
  }

  get isReady(): boolean {
    return this.#conn !== undefined;
  }

  /** Connects at once (the scenario's clients start connected, as a user's would). */
  connectNow(): void {
    this.#open();
  }

  connect(): Promise<unknown> {
    this.#schedule();
    return Promise.resolve(this);
  }

  duplicate(overrides: Record<string, unknown>): SimRedisClient {
    return this.net.client(this.proc, this.host, 3, overrides.emitInvalidate === true);
  }

  sendCommand(args: readonly string[]): Promise<unknown> {
    const conn = this.#conn;
    if (conn === undefined) return Promise.reject(this.#destroyed ? new Error('The client is closed') : socketClosed());
    let pending!: Pending;
    const promise = new Promise<unknown>((resolve, reject) => { pending = { resolve, reject }; });
    const { resolve, reject } = pending;
    this.#pending.add(pending);
    const generation = this.#generation;
    const world = this.proc.world;
    this.#lastArrival = Math.max(this.#lastArrival, this.net.arrival(this.proc, this.host));
    this.net.trace(this.proc, this.host, '>', args);
    world.at(this.host.runAt(this.#lastArrival), () => {
      if (generation !== this.#generation || !conn.open) return;
      const reply = conn.exec(args);
      this.#deliver(generation, () => {
        this.#pending.delete(pending);
        this.net.trace(this.proc, this.host, '<', reply);
        if (reply instanceof RedisReplyError) reject(reply);
        else resolve(reply);
      });
    });
    return promise;
  }

  destroy(): void {
    this.#destroyed = true;
    this.#drop();
  }

  close(): Promise<void> {
    this.destroy();
    return Promise.resolve();
  }

  quit(): Promise<void> {
    return this.close();
  }

  /** The network closed this connection (a fault): in-flight replies are lost, pending commands fail. */
  dropConnection(): void {
    if (this.#conn === undefined) return;
    this.#conn.close();
  }

  /** A reply or push reaching the process, in connection order, at the network's time. */
  #deliver(generation: number, fn: () => void): void {
    this.#lastDelivery = Math.max(this.#lastDelivery, this.net.arrival(this.proc, this.host));
    this.proc.at(this.#lastDelivery, () => {
      if (generation === this.#generation) fn();
    });
  }

  #open(): void {
    this.#connecting = false;
    if (this.#destroyed || this.#conn !== undefined) return;
    if (this.host.isDown()) {
      this.#schedule();
      return;
    }
    const conn = this.host.master.connect({ resp: this.resp });
    const generation = ++this.#generation;
    this.#conn = conn;
    this.#lastArrival = this.#lastDelivery = this.proc.world.now;
    conn.onClose = () => {
      if (this.#conn === conn) this.proc.at(this.proc.world.now, () => { this.#lost(conn); });
    };
    if (this.#tracking) {
      conn.onPush = (push: Push) => {
        this.#deliver(generation, () => {
          this.net.trace(this.proc, this.host, '!', push[1] === null ? ['invalidate', '*'] : ['invalidate', ...push[1]]);
          this.emit('invalidate', push[1] === null ? null : Buffer.from(push[1][0]));
        });
      };
      conn.exec(['CLIENT', 'TRACKING', 'on']);
    }
    this.proc.run(() => { this.emit('ready'); });
  }

  #lost(conn: SimConnection): void {
    if (this.#conn !== conn) return;
    this.#drop();
    if (this.listenerCount('error') > 0) this.emit('error', socketClosed());
    this.#schedule();
  }

  #drop(): void {
    const conn = this.#conn;
    this.#conn = undefined;
    this.#generation++;
    if (conn?.open === true) conn.close();
    const pending = [...this.#pending];
    this.#pending.clear();
    for (const p of pending) p.reject(socketClosed());
  }

  #schedule(): void {
    if (this.#connecting || this.#destroyed) return;
    this.#connecting = true;
    this.proc.at(this.proc.world.now + this.net.reconnectDelay(), () => { this.#open(); });
  }
}

export type { Reply };
