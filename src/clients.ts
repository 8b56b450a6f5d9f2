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
 * The part of an ioredis 5 or 6 `Redis` instance pipelock relies on. Structural, so that the user's
 * ioredis (whichever copy of the module built it, or its fork iovalkey, told apart by shape and not
 * by package) fits without pipelock importing ioredis at all.
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
  connect(): Promise<unknown>;
}

export interface IoredisOptions {
  host?: string;
  port?: number;
  path?: string | null;
  keyPrefix?: string;
}

/** One master of a Redis Cluster as @redis/client's cluster client lists it (`cluster.masters`, `cluster.slots[n].master`). */
export interface ClusterShardNode {
  readonly host: string;
  readonly port: number;
  /** Its connection, once opened. */
  readonly client?: { readonly isReady: boolean };
}

/**
 * The part of an @redis/client cluster (`createCluster()`) pipelock uses: routing by key with
 * MOVED/ASK handling (`sendCommand(firstKey, …)`), the slot table, and each master's connection.
 */
export interface RedisClusterClient {
  readonly isOpen: boolean;
  readonly isReady: boolean;
  readonly slots: readonly ({ readonly master: ClusterShardNode } | undefined)[];
  readonly masters: readonly ClusterShardNode[];
  nodeClient(node: ClusterShardNode): RedisClient | Promise<RedisClient>;
  sendCommand(firstKey: string | undefined, isReadonly: boolean | undefined, args: string[], options?: { timeout?: number }): Promise<unknown>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  on(event: string, listener: (...args: any[]) => void): unknown;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  off(event: string, listener: (...args: any[]) => void): unknown;
  connect(): Promise<unknown>;
  close(): Promise<void>;
  destroy(): void;
}

/** A Redis Cluster named by seed URLs (any of its nodes); pipelock opens an @redis/client cluster from them. */
export interface ClusterSeeds {
  readonly cluster: readonly string[];
}

/**
 * A client a user may hand pipelock: @redis/client (any `createClient()` result), an ioredis 5/6
 * `Redis`, or a Redis Cluster (an @redis/client `createCluster()` result) as one member.
 */
export type MasterClient = RedisClient | IoredisClient | RedisClusterClient;

/** The part of an ioredis `Cluster` pipelock uses (structural: whichever copy of ioredis built it). */
export interface IoredisClusterClient extends Omit<IoredisClient, 'duplicate' | 'options'> {
  readonly isCluster: boolean;
  readonly options: { keyPrefix?: string; redisOptions?: Record<string, unknown> };
  /** Per slot, the node keys (`host:port`) serving it, master first. */
  readonly slots: readonly (readonly string[] | undefined)[];
  nodes(role: 'master'): IoredisClient[];
  duplicate(startupNodes?: unknown[], options?: Record<string, unknown>): IoredisClusterClient;
}

/** One entry of Redlock's `clients`: a client, a redis:// URL, or a cluster's seed URLs (one member each). */
export type MemberEntry = MasterClient | string | ClusterSeeds | IoredisClusterClient;
