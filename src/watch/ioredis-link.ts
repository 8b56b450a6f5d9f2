import { EventEmitter } from 'node:events';
import type { IoredisClient } from '../clients.js';
import type { WatchClient } from './watch.js';

/** Where Redis publishes the invalidations of a connection whose tracking redirects to a subscriber. */
const CHANNEL = '__redis__:invalidate';

/**
 * What both connections of a link change from the user's client settings: no key prefix (the watch
 * reads keys as the master set names them, prefix included), replies as Redis gives them, no replay
 * or queueing (a read that cannot go now is unknown, never late), and RESP2 (ioredis 6 speaks RESP3
 * by default, and a RESP3 subscriber is sent `invalidate` pushes, which ioredis does not surface).
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
 * An ioredis (or iovalkey) master's watch connection: client-side caching in the redirect mode, which
 * works on RESP2 and RESP3 servers alike and needs no push support in the client. Two `duplicate()`s
 * of the user's client (same host, TLS, credentials, Sentinel, db): a reader that sends the watch's
 * reads with `CLIENT TRACKING on REDIRECT <id>`, in the default mode as @redis/client's watch tracks
 * (only keys read on it), and a subscriber to `__redis__:invalidate` whose CLIENT ID is `<id>`, where
 * Redis publishes each change of a key read on the reader.
 *
 * Either connection may drop and come back alone. A new reader has no tracking; a new subscriber
 * has a new id, and the reader's tracking still names the old one (Redis then drops what it would
 * have told). So each reconnect of either re-sends the redirect to the current subscriber, and the
 * link is ready (and says 'ready', which has the watch's keys read and tracked again) only once
 * the reader tracks to the subscriber that is listening now; a drop of either is an 'error'.
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
