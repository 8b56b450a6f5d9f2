import type { RedisClientOptions } from '@redis/client';
import type { MasterClient, RedisClient } from '../../clients.js';
import { closeWithin } from '../close.js';
import { isIoredisClient, quit } from '../ioredis.js';
import { closeClient, loadRedisClient, openClient } from '../open.js';
import type { Sink, Transport } from '../transport.js';
import { LeanConnection } from './connection.js';
import type { LeanOptions } from './options.js';

/**
 * The Transport over a lean connection (src/transport/lean/connection.ts), from a URL or beside a given client
 * (`connection: 'lean'`); its `client` is the user's when there is one.
 */
export class LeanTransport implements Transport {
  readonly name: string;
  readonly keyPrefix: string;
  readonly connection: LeanConnection;
  /** The client the user gave, which pipelock's connection was opened beside; undefined for a URL. */
  readonly given: MasterClient | undefined;
  readonly #url: string | undefined;
  readonly #clientOptions: RedisClientOptions | undefined;
  #source: RedisClient | undefined;

  private constructor(name: string, options: LeanOptions, given: MasterClient | undefined, keyPrefix: string, url?: string,
    clientOptions?: RedisClientOptions) {
    this.name = name;
    this.connection = new LeanConnection(options);
    this.given = given;
    this.keyPrefix = keyPrefix;
    this.#url = url;
    this.#clientOptions = clientOptions;
  }

  /** Opens a connection from a URL; `onError` hears its errors from before the connect on. */
  static open(url: string, name: string, options: LeanOptions, clientOptions: RedisClientOptions | undefined,
    onError: (error: Error) => void): LeanTransport {
    // URLs still need @redis/client for the watch connection (waiting on a key): said up front.
    loadRedisClient(url);
    return new LeanTransport(name, options, undefined, '', url, clientOptions).#start(onError);
  }

  /** Opens pipelock's connection beside a client the user gave, from that client's options. */
  static beside(given: MasterClient, name: string, options: LeanOptions, keyPrefix: string,
    onError: (error: Error) => void): LeanTransport {
    return new LeanTransport(name, options, given, keyPrefix).#start(onError);
  }

  #start(onError: (error: Error) => void): this {
    this.onError(onError);
    this.connection.connect();
    return this;
  }

  get client(): MasterClient {
    return this.given ?? this.connection;
  }

  get isOpen(): boolean {
    return this.connection.isOpen;
  }

  get isReady(): boolean {
    return this.connection.isReady;
  }

  /** An unconnected @redis/client client for the URL, for the watch to duplicate (the lean connection has no tracking). */
  watchSource(): RedisClient {
    this.#source ??= openClient(this.#url!, this.#clientOptions);
    return this.#source;
  }

  send(args: readonly string[]): Promise<unknown> {
    return this.connection.sendCommand(args);
  }

  post(args: readonly string[], sink: Sink, token: unknown, shared = false): void {
    this.connection.post(args, sink, token, shared);
  }

  cork(): void {
    this.connection.cork();
  }

  uncork(): void {
    this.connection.uncork();
  }

  onReady(fn: () => void): () => void {
    this.connection.on('ready', fn);
    return () => this.connection.off('ready', fn);
  }

  onError(fn: (error: Error) => void): () => void {
    this.connection.on('error', fn);
    return () => this.connection.off('error', fn);
  }

  async close(graceMs: number, keepGiven = false): Promise<void> {
    const connection = this.connection;
    const mine = closeWithin(graceMs, () => connection.close(), () => { connection.destroy(); });
    await Promise.all([mine, keepGiven || this.given === undefined ? undefined : closeGiven(this.given, graceMs)]);
  }
}

/** A given client is closed with pipelock (as node-redlock v5 did) unless the caller keeps it. */
function closeGiven(given: MasterClient, graceMs: number): Promise<void> {
  return isIoredisClient(given) ? quit(given, graceMs) : closeClient(given as RedisClient, graceMs);
}
