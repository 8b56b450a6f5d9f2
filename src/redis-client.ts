/**
 * The part of an @redis/client client pipelock uses. Any `createClient()` result fits; a
 * structural type keeps user clients with their own modules, scripts or RESP version assignable.
 */
export interface RedisClient {
  readonly isOpen: boolean;
  readonly isReady: boolean;
  sendCommand(args: readonly string[], options?: { timeout?: number }): Promise<unknown>;
  // EventEmitter's own listener type, so that every client class is assignable.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  on(event: 'ready' | 'error', listener: (...args: any[]) => void): unknown;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  off(event: 'ready' | 'error', listener: (...args: any[]) => void): unknown;
  close?(): Promise<void>;
  destroy?(): void;
  quit?(): Promise<unknown>;
  readonly options?: unknown;
}

/**
 * The part of an ioredis 5 `Redis` instance pipelock relies on. Structural, so that the user's
 * ioredis (whichever copy of the module built it) fits without pipelock importing ioredis at all.
 */
export interface IoredisClient {
  readonly status: string;
  readonly options: IoredisOptions;
  duplicate(override?: Record<string, unknown>): IoredisClient;
  call(command: string, ...args: (string | number)[]): Promise<unknown>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  on(event: string, listener: (...args: any[]) => void): unknown;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  off(event: string, listener: (...args: any[]) => void): unknown;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  once(event: string, listener: (...args: any[]) => void): unknown;
  quit(): Promise<unknown>;
  disconnect(reconnect?: boolean): void;
}

export interface IoredisOptions {
  host?: string;
  port?: number;
  path?: string | null;
  keyPrefix?: string;
}

/** A client a user may hand pipelock: @redis/client (any `createClient()` result) or an ioredis 5/6 `Redis`. */
export type MasterClient = RedisClient | IoredisClient;
