import { EventEmitter } from 'node:events';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { encode, encodeShared } from './encode.js';
import { handshake, type LeanOptions } from './options.js';
import type { Sink } from '../transport.js';
import { Pending, promiseSink, type Settle } from './pending.js';
import { Replies } from './replies.js';
import { leanStats } from './stats.js';
import { after } from '../../util/time.js';

/**
 * pipelock's own connection to one master: each flush one `socket.write`, replies parsed in bulk into the oldest
 * command's sink (src/transport/lean/pending.ts), no promise per command. 'ready' after each handshake, 'error' once per
 * failure before the awaited commands fail; reconnects with backoff. Shaped as an @redis/client client.
 */
export class LeanConnection extends EventEmitter implements Sink<Socket> {
  readonly options: LeanOptions;
  readonly #replies: Replies;
  #socket: Socket | undefined;
  /** Written, awaiting replies. */
  readonly #pending = new Pending();
  /** Sent while not ready: written after the next handshake, as @redis/client's offline queue is. */
  readonly #held = new Pending();
  #heldOut = '';
  /** Commands of this tick not yet written. */
  #out = '';
  #scheduled = false;
  /** Between cork() and uncork(): posted commands wait for uncork() instead of a microtask. */
  #corked = false;
  #ready = false;
  #open = true;
  #retries = 0;
  #timer: NodeJS.Timeout | undefined;
  /** Handshake replies still awaited on the socket now connecting. */
  #handshaking = 0;
  /** Why the socket now open is being dropped (a refused handshake), said once when it closes. */
  #cause: Error | undefined;

  constructor(options: LeanOptions) {
    super();
    this.options = options;
    this.#replies = new Replies({
      returnReply: (reply) => { this.#reply(reply, false); },
      returnError: (error) => { this.#reply(error, true); },
      returnFatalError: (error) => { this.#drop(error); },
    });
  }

  get isOpen(): boolean {
    return this.#open;
  }

  get isReady(): boolean {
    return this.#ready;
  }

  /** Commands written and not answered yet (tests and diagnostics). */
  get waiting(): number {
    return this.#pending.size + this.#held.size;
  }

  /** Opens the socket; call once the 'error' listeners are on (an unheard 'error' throws). */
  connect(): void {
    const { tls, host, port, path, socket: extra, connectTimeout } = this.options;
    const target = path === undefined ? { host, port } : { path };
    const socket: Socket = tls ? tlsConnect({ ...extra, ...target, servername: host }) : netConnect({ ...extra, ...target } as never);
    this.#socket = socket;
    this.#cause = undefined;
    if (connectTimeout > 0) {
      this.#timer = after(connectTimeout, () => { socket.destroy(new Error(`Connection timeout (${connectTimeout} ms)`)); });
    }
    socket.once(tls ? 'secureConnect' : 'connect', () => {
      clearTimeout(this.#timer);
      this.#greet(socket);
    });
    socket.on('data', (chunk: Buffer) => {
      leanStats.reads++;
      this.#replies.execute(chunk);
    });
    socket.on('error', (error: Error) => {
      this.#cause ??= error;
    });
    socket.on('close', () => { this.#closed(socket); });
  }

  /**
   * Sends one command; its reply (or error) goes to `sink` with `token`. `shared`: other masters get the same array, so
   * its encoding is kept for them (encodeShared); a master's own words (a script call of many operations) are not kept.
   */
  post(args: readonly string[], sink: Sink, token: unknown, shared = false): void {
    if (!this.#ready) {
      if (!this.#open) {
        queueMicrotask(() => { sink.failed(token, new Error('The client is closed')); });
        return;
      }
      this.#heldOut = encode(this.#heldOut, args);
      this.#held.push(sink, token);
      return;
    }
    this.#out = shared ? encodeShared(this.#out, args) : encode(this.#out, args);
    this.#pending.push(sink, token);
    leanStats.commands++;
    if (this.#scheduled || this.#corked) return;
    this.#scheduled = true;
    queueMicrotask(this.#flush);
  }

  /** Posts until uncork() are written by it: the engine's flush of this master, one write, no microtask. */
  cork(): void {
    this.#corked = true;
  }

  uncork(): void {
    this.#corked = false;
    // A microtask already scheduled (a send before cork) finds nothing left to write.
    this.#flush();
  }

  sendCommand(args: readonly string[]): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.post(args, promiseSink, { resolve, reject } satisfies Settle);
    });
  }

  /** Closes after every reply awaited has come (a PING answers last), or at once when not ready. */
  async close(): Promise<void> {
    if (!this.#ready) {
      this.destroy();
      return;
    }
    await this.sendCommand(['PING']).catch(() => undefined);
    this.destroy();
  }

  /** Closes at once: what is awaited fails with 'The client is closed'. */
  destroy(): void {
    this.#open = false;
    this.#ready = false;
    clearTimeout(this.#timer);
    const socket = this.#socket;
    this.#socket = undefined;
    this.#out = '';
    this.#heldOut = '';
    socket?.destroy();
    const error = new Error('The client is closed');
    this.#pending.failAll(error);
    this.#held.failAll(error);
  }

  readonly #flush = (): void => {
    this.#scheduled = false;
    const out = this.#out;
    if (out === '') return;
    this.#out = '';
    leanStats.writes++;
    this.#socket!.write(out);
  };

  #reply(reply: unknown, failed: boolean): void {
    if (!this.#pending.settle(reply, failed)) this.#drop(new Error('a reply came with no command awaiting it'));
  }

  /** The handshake of a new socket (never empty: at least a PING): ready once the server answered all of it. */
  #greet(socket: Socket): void {
    const commands = handshake(this.options);
    let out = '';
    for (const command of commands) {
      out = encode(out, command);
      this.#pending.push(this, socket);
    }
    this.#handshaking = commands.length;
    socket.write(out);
  }

  replied(socket: Socket): void {
    if (socket !== this.#socket || --this.#handshaking > 0) return;
    this.#ready = true;
    this.#resume(socket);
  }

  failed(socket: Socket, error: Error): void {
    // A refused handshake (wrong password, an unknown database): this socket is done.
    if (socket !== this.#socket || this.#handshaking === 0) return;
    this.#handshaking = 0;
    this.#drop(error);
  }

  /** Ready: what was held is written (before 'ready', as @redis/client does), then 'ready'. */
  #resume(socket: Socket): void {
    this.#retries = 0;
    if (this.#held.size > 0) {
      leanStats.commands += this.#held.size;
      leanStats.writes++;
      this.#pending.take(this.#held);
      const out = this.#heldOut;
      this.#heldOut = '';
      socket.write(out);
    }
    this.emit('ready');
  }

  #drop(error: Error): void {
    this.#cause ??= error;
    this.#socket?.destroy();
  }

  /** A socket closed: unless pipelock closed it, 'error', then every awaited command fails, then a reconnect. */
  #closed(socket: Socket): void {
    clearTimeout(this.#timer);
    if (socket !== this.#socket) return;
    this.#socket = undefined;
    this.#ready = false;
    this.#handshaking = 0;
    this.#out = '';
    this.#replies.reset();
    const error = this.#cause ?? new Error('Socket closed unexpectedly');
    this.emit('error', error);
    this.#pending.failAll(error);
    this.#retry(error);
  }

  #retry(cause: Error): void {
    const strategy = this.options.reconnect;
    const delay = typeof strategy === 'function' ? strategy(this.#retries++, cause) : strategy;
    if (typeof delay !== 'number') {
      this.destroy();
      return;
    }
    this.#timer = after(delay, () => { if (this.#open) this.connect(); });
  }
}
