import type { OpArgs } from '../protocol/opcodes.js';
import type { MasterClient } from '../clients.js';

/** A coalesced call as a routing transport sees it (the engine's Batch fits): its operations and its words. */
export interface Call {
  readonly ops: readonly OpArgs[];
  readonly args: readonly string[];
  /** One operation as a native command (SET NX PX, SET IFEQ, DELIFEQ, DELEX), not a script call. */
  readonly native: boolean;
  /** The earliest deadline among its operations (performance.now()). */
  readonly deadline: number;
}

/** Where a posted command's reply goes: one object serves every command it posts (no promise per command). */
export interface Sink<T = unknown> {
  replied(token: T, reply: unknown): void;
  failed(token: T, error: Error): void;
}

/**
 * The one seam between pipelock's per-master logic and a client library: each client kind implements it once, and
 * nothing else in the data path touches a client.
 */
export interface Transport {
  /** The client as the caller gave it (or as pipelock opened it from a URL), for stats and `clients`. */
  readonly client: MasterClient;
  /** `host:port` (or whatever names the master) for messages. */
  readonly name: string;
  /** Connected or connecting: closed connections never become ready. */
  readonly isOpen: boolean;
  /** Connected and past the handshake: a command sent now goes out now. */
  readonly isReady: boolean;
  /** Sends one command (no per-command timeout: each attempt has its deadline); rejects with the server's or socket's error. */
  send(args: readonly string[]): Promise<unknown>;
  /**
   * On a transport that routes each operation itself (a cluster member): sends a batch and resolves with its call's
   * reply, a failed operation's part replaced by its Error.
   */
  sendBatch?(batch: Call): Promise<unknown>;
  /**
   * On the lean connection: sends as `send`, the reply or error going to `sink` with `token`, once and in order.
   * `shared`: the same array goes to the other masters too (an operation's words, made once), so its encoding is kept.
   */
  post?(args: readonly string[], sink: Sink, token: unknown, shared?: boolean): void;
  /** With `post`: commands posted between cork() and uncork() go out in one write (the engine corks each flush). */
  cork?(): void;
  uncork?(): void;
  /** Called at every (re)connect once the connection is ready; returns the unsubscribe. */
  onReady(fn: () => void): () => void;
  /** Called on every connection error; returns the unsubscribe. */
  onError(fn: (error: Error) => void): () => void;
  /**
   * Closes the connection: gracefully (pending replies first) for at most `graceMs`, then at once.
   * With `keepGiven`, a client the caller gave stays open and only what pipelock opened beside it closes.
   */
  close(graceMs: number, keepGiven?: boolean): Promise<void>;
}
