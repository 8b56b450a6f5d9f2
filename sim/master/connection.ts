import type { Reply } from './reply.js';
import type { Push } from './tracking.js';

export type { Push };

/** What a connection asks of its master. */
export interface ConnectionPort {
  exec(args: readonly string[]): Reply;
  close(): void;
  isOpen(): boolean;
}

/** Raised by exec() on a connection that was closed (by close(), or the master's drop or restart). */
export class ConnectionClosedError extends Error {
  override readonly name = 'ConnectionClosedError';
  readonly code = 'ERR_SIM_CONNECTION_CLOSED';

  constructor(readonly id: number) {
    super(`simulated connection ${id} is closed`);
  }
}

/**
 * One client connection to a simulated master: commands in, replies and pushes out, one command
 * at a time and at once (the transport that carries them decides when each arrives).
 */
export class SimConnection {
  /**
   * Each push to this connection: `['invalidate', [key]]`, or `['invalidate', null]` for a flush.
   * `afterReply`: the push was caused by this connection's own command, now in exec(); Redis
   * writes it after that command's reply. Other pushes come at once, between replies.
   */
  onPush: ((push: Push, afterReply: boolean) => void) | undefined;
  /** Called once when the connection closes, by whatever side. */
  onClose: (() => void) | undefined;
  readonly #port: ConnectionPort;

  /** @internal From SimMaster.connect(). */
  constructor(
    /** The master's client id: ascending in connection order, never reused. */
    readonly id: number,
    /** The protocol replies use (RESP3 is @redis/client's default; pushes need it). */
    readonly resp: 2 | 3,
    port: ConnectionPort,
  ) {
    this.#port = port;
  }

  get open(): boolean {
    return this.#port.isOpen();
  }

  /** Runs one command now: Redis's reply, or a RedisReplyError carrying Redis's error text. */
  exec(args: readonly string[]): Reply {
    if (!this.#port.isOpen()) throw new ConnectionClosedError(this.id);
    return this.#port.exec(args);
  }

  close(): void {
    this.#port.close();
  }
}
