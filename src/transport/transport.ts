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
 * How a master's code talks to its connection: the one seam between pipelock's per-master logic
 * (coalescing, script replay, deadlines) and a client library. Every client kind (@redis/client,
 * ioredis) implements it once; nothing else in the data path touches a client directly.
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
  /**
   * Sends one command (its words, as Redis takes them). No per-command timeout: pipelock bounds
   * each attempt with its own deadline. Rejects with the server's or the connection's error.
   */
  send(args: readonly string[]): Promise<unknown>;
  /**
   * Present on a transport that routes each operation itself (a Redis Cluster member): sends a
   * coalesced batch and resolves with the reply the batch's own call would have had, except that
   * an operation whose part failed gets its Error in its place.
   */
  sendBatch?(batch: Call): Promise<unknown>;
  /**
   * Present on pipelock's own lean connection (src/transport/lean/): sends one command as `send` does,
   * but its reply or error goes to `sink` with `token`, exactly once and in the order posted.
   */
  post?(args: readonly string[], sink: Sink, token: unknown): void;
  /**
   * Present with `post`: between cork() and uncork() posted commands are gathered and written at
   * uncork() in one write, instead of in a microtask of their own (the engine corks each flush).
   */
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
