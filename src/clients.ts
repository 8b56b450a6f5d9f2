/** The part of an @redis/client client pipelock uses: structural, so clients with any modules or RESP version fit. */
export interface RedisClient {
  /** The socket is open (connected or reconnecting). */
  readonly isOpen: boolean;
  /** Connected and ready for commands. */
  readonly isReady: boolean;
  /** Sends one command; pipelock passes `{ timeout: 0 }` so no per-command timer is armed. */
  sendCommand(args: readonly string[], options?: { timeout?: number }): Promise<unknown>;
  // EventEmitter's own listener type, so that every client class is assignable.
  /** Subscribes to the client's `ready` and `error` events. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  on(event: 'ready' | 'error', listener: (...args: any[]) => void): unknown;
  /** Unsubscribes a listener added with `on`. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  off(event: 'ready' | 'error', listener: (...args: any[]) => void): unknown;
  /** Closes the connection after pending replies (@redis/client 5+). */
  close?(): Promise<void>;
  /** Closes the connection at once. */
  destroy?(): void;
  /** Closes the connection after pending replies (older @redis/client). */
  quit?(): Promise<unknown>;
  /** The options the client was created with (read for `duplicate()`-like copies). */
  readonly options?: unknown;
}

/**
 * The part of an ioredis 5 or 6 `Redis` instance pipelock relies on. Structural, so that the user's
 * ioredis (whichever copy of the module built it, or its fork iovalkey, told apart by shape and not
 * by package) fits without pipelock importing ioredis at all.
 */
export interface IoredisClient {
  /** ioredis' connection state (`'ready'`, `'connecting'`, …). */
  readonly status: string;
  /** The options it was created with; pipelock reads its address and `keyPrefix`. */
  readonly options: IoredisOptions;
  /** A new connection with the same options (pipelock sends on one of its own). */
  duplicate(override?: Record<string, unknown>): IoredisClient;
  /** Sends one command. */
  call(command: string, ...args: (string | number)[]): Promise<unknown>;
  /** Subscribes to an event. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  on(event: string, listener: (...args: any[]) => void): unknown;
  /** Unsubscribes a listener. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  off(event: string, listener: (...args: any[]) => void): unknown;
  /** Subscribes to the next occurrence of an event. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  once(event: string, listener: (...args: any[]) => void): unknown;
  /** Closes the connection after pending replies. */
  quit(): Promise<unknown>;
  /** Closes the connection at once. */
  disconnect(reconnect?: boolean): void;
  /** Opens the connection of a client made with `lazyConnect` (pipelock's duplicates are). */
  connect(): Promise<unknown>;
}

/** The part of ioredis' options pipelock reads. */
export interface IoredisOptions {
  /** Host name or address. */
  host?: string;
  /** TCP port. */
  port?: number;
  /** Unix socket path, instead of host and port. */
  path?: string | null;
  /** Prefix ioredis adds to every key; pipelock applies it to lock keys too. */
  keyPrefix?: string;
}

/** One master of a Redis Cluster as @redis/client's cluster client lists it (`cluster.masters`, `cluster.slots[n].master`). */
export interface ClusterShardNode {
  /** The shard master's host. */
  readonly host: string;
  /** The shard master's port. */
  readonly port: number;
  /** Its connection, once opened. */
  readonly client?: {
    /** Connected and ready for commands. */
    readonly isReady: boolean;
  };
}

/** The part of an @redis/client cluster pipelock uses: routing by key (MOVED/ASK), the slot table, each master's connection. */
export interface RedisClusterClient {
  /** The cluster client is open. */
  readonly isOpen: boolean;
  /** The cluster client is connected and ready. */
  readonly isReady: boolean;
  /** Per hash slot, the shard master that owns it. */
  readonly slots: readonly ({
    /** The shard master owning the slot. */
    readonly master: ClusterShardNode;
  } | undefined)[];
  /** Every shard master. */
  readonly masters: readonly ClusterShardNode[];
  /** The connection to one shard master. */
  nodeClient(node: ClusterShardNode): RedisClient | Promise<RedisClient>;
  /** Sends one command to the shard owning `firstKey`, following MOVED and ASK. */
  sendCommand(firstKey: string | undefined, isReadonly: boolean | undefined, args: string[],
    options?: { timeout?: number }): Promise<unknown>;
  /** Subscribes to an event. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  on(event: string, listener: (...args: any[]) => void): unknown;
  /** Unsubscribes a listener. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  off(event: string, listener: (...args: any[]) => void): unknown;
  /** Connects to the cluster. */
  connect(): Promise<unknown>;
  /** Closes every connection after pending replies. */
  close(): Promise<void>;
  /** Closes every connection at once. */
  destroy(): void;
}

/** A Redis Cluster named by seed URLs (any of its nodes); pipelock opens an @redis/client cluster from them. */
export interface ClusterSeeds {
  /** Seed URLs: any nodes of the cluster. */
  readonly cluster: readonly string[];
}

/** A client for pipelock: @redis/client (createClient()), an ioredis 5/6 `Redis`, or a Redis Cluster as one member. */
export type MasterClient = RedisClient | IoredisClient | RedisClusterClient;

/** The part of an ioredis `Cluster` pipelock uses (structural: whichever copy of ioredis built it). */
export interface IoredisClusterClient extends Omit<IoredisClient, 'duplicate' | 'options'> {
  /** True for an ioredis `Cluster`. */
  readonly isCluster: boolean;
  /** Its options: `keyPrefix`, and `redisOptions` for the connections to each node. */
  readonly options: {
    /** Prefix ioredis adds to every key; pipelock applies it to lock keys too. */
    keyPrefix?: string;
    /** Options of the connections to each node. */
    redisOptions?: Record<string, unknown>;
  };
  /** Per slot, the node keys (`host:port`) serving it, master first. */
  readonly slots: readonly (readonly string[] | undefined)[];
  /** The connections to the shard masters. */
  nodes(role: 'master'): IoredisClient[];
  /** A new cluster client with the same options. */
  duplicate(startupNodes?: unknown[], options?: Record<string, unknown>): IoredisClusterClient;
}

/** One entry of Redlock's `clients`: a client, a redis:// URL, or a cluster's seed URLs (one member each). */
export type MemberEntry = MasterClient | string | ClusterSeeds | IoredisClusterClient;
