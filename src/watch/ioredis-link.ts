import { EventEmitter } from 'node:events';
import type { IoredisClient } from '../clients.js';
import type { WatchClient } from './watch.js';

/** Where Redis publishes the invalidations of a connection whose tracking redirects to a subscriber. */
const CHANNEL = '__redis__:invalidate';

/**
 * What a link's connections change from the user's settings: no key prefix (keys come named), raw replies, no
 * replay or queueing (unknown, never late), and RESP2 (ioredis does not surface RESP3 `invalidate` pushes).
 */
const LINK_OPTIONS = Object.freeze({
  lazyConnect: true,
  keyPrefix: undefined,
  enableAutoPipelining: false,
  commandTimeout: undefined,
  stringNumbers: false,
  readOnly: false,
  monitor: false,
  protocol: 2,
  maxRetriesPerRequest: 0,
  autoResendUnfulfilledCommands: false,
  enableOfflineQueue: false,
});

/** The subscriber resubscribes itself, after it has learned its new CLIENT ID: the redirect names it. */
const SUBSCRIBER_OPTIONS = Object.freeze({ ...LINK_OPTIONS, autoResubscribe: false });

/**
 * An ioredis (or iovalkey) master's watch: tracking in the redirect mode over two `duplicate()`s, a reader
 * (`CLIENT TRACKING on REDIRECT <id>`) and a subscriber to `__redis__:invalidate`. Ready only once the reader
 * redirects to the live subscriber; either may reconnect alone (docs/decisions/0012, "ioredis-link.ts").
 */
export class IoredisLink extends EventEmitter implements WatchClient {
  readonly #reader: IoredisClient;
  readonly #subscriber: IoredisClient;
  /** The subscriber's CLIENT ID, once it is subscribed on its current connection. */
  #listening: number | undefined;
  /** The subscriber id the reader's tracking redirects to on its current connection. */
  #trackingTo: number | undefined;
  /** 'ready' was told and no drop since: the next drop is told as an 'error'. */
  #told = false;
  #closed = false;

  constructor(source: IoredisClient) {
    super();
    this.#reader = source.duplicate(LINK_OPTIONS);
    this.#subscriber = source.duplicate(SUBSCRIBER_OPTIONS);
    this.#reader.on('ready', () => {
      this.#trackingTo = undefined;
      this.#redirect();
    });
    this.#subscriber.on('ready', () => { void this.#subscribe(); });
    this.#subscriber.on('messageBuffer', (channel: Buffer, keys: unknown) => {
      if (channel.toString() === CHANNEL) this.#invalidated(keys);
    });
    // Both connections are pipelock's: their errors end what they tracked and are told as a drop,
    // never left to ioredis, which prints an unheard 'error' to stderr.
    this.#reader.on('error', (error: Error) => { this.#drop(error); });
    this.#subscriber.on('error', (error: Error) => { this.#drop(error); });
    this.#reader.on('close', () => {
      this.#trackingTo = undefined;
      this.#drop(new Error('the watch connection closed'));
    });
    this.#subscriber.on('close', () => {
      this.#listening = undefined;
      this.#drop(new Error('the invalidation subscriber closed'));
    });
  }

  get isReady(): boolean {
    return this.#trackingTo !== undefined && this.#trackingTo === this.#listening && this.#reader.status === 'ready';
  }

  async connect(): Promise<void> {
    await Promise.all([this.#reader.connect(), this.#subscriber.connect()]);
  }

  sendCommand(args: readonly string[]): Promise<unknown> {
    return this.#reader.call(...(args as [string, ...string[]]));
  }

  destroy(): void {
    this.#closed = true;
    this.#reader.disconnect(false);
    this.#subscriber.disconnect(false);
  }

  /** On each subscriber connection: learn its id, then subscribe (after SUBSCRIBE it takes no CLIENT command). */
  async #subscribe(): Promise<void> {
    const subscriber = this.#subscriber;
    try {
      const id = Number(await subscriber.call('client', 'id'));
      await subscriber.call('subscribe', CHANNEL);
      this.#listening = id;
      this.#redirect();
    } catch (error) {
      // The connection dropped meanwhile (its 'close' tells that) or refused: nothing is tracked.
      this.#drop(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** Points the reader's tracking at the current subscriber, once both are up. */
  #redirect(): void {
    const id = this.#listening;
    if (id === undefined || this.#reader.status !== 'ready' || this.#trackingTo === id) return;
    this.#reader.call('client', 'tracking', 'on', 'redirect', String(id)).then(() => {
      if (this.#listening !== id || this.#closed) return;
      this.#trackingTo = id;
      this.#told = true;
      this.emit('ready');
    }, (error: unknown) => {
      this.#drop(error instanceof Error ? error : new Error(String(error)));
    });
  }

  /** One published invalidation: its keys (Buffers), or null for every key (FLUSHALL, a lost table). */
  #invalidated(keys: unknown): void {
    if (!Array.isArray(keys)) {
      this.emit('invalidate', null);
      return;
    }
    for (const key of keys as Buffer[]) this.emit('invalidate', key);
  }

  #drop(error: Error): void {
    if (this.#closed || !this.#told) return;
    this.#told = false;
    this.emit('error', error);
  }
}
