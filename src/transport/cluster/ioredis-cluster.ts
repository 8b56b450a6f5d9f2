import { NodeUnavailableError } from '../../errors.js';
import type { IoredisClient, IoredisClusterClient, MasterClient } from '../../clients.js';
import { quit } from '../ioredis.js';
import { listen } from '../listen.js';
import { ClusterTransport } from './transport.js';
import { clusterName, hostPort } from '../names.js';

/** An ioredis `Cluster`. */
export function isIoredisCluster(value: unknown): value is IoredisClusterClient {
  const candidate = value as Partial<IoredisClusterClient> | null;
  return typeof candidate === 'object' && candidate !== null && candidate.isCluster === true && typeof candidate.nodes === 'function'
    && typeof candidate.status === 'string';
}

/** Master connections that were ready once: not ready now means dropped. */
const seenReady = new WeakSet<object>();

/**
 * A cluster member over an ioredis `Cluster`, sending on its own `duplicate()` set as for a standalone master
 * (src/transport/ioredis.ts). ioredis follows MOVED and ASK itself; `retryDelayOnTryAgain` is short, so a call split
 * across a migrating slot returns within the attempt's budget.
 */
export class IoredisClusterTransport extends ClusterTransport {
  readonly name: string;
  /** The user's Cluster (ioredis' own type is not one pipelock names; structurally a client). */
  readonly client: MasterClient;
  readonly #given: IoredisClusterClient;
  readonly #connection: IoredisClusterClient;

  constructor(client: IoredisClusterClient, index: number) {
    super();
    this.client = client as unknown as MasterClient;
    this.#given = client;
    const masters = client.nodes('master');
    this.name = clusterName(masters.map(nodeKey), index);
    this.#connection = client.duplicate(undefined, {
      enableAutoPipelining: false,
      keyPrefix: undefined,
      retryDelayOnTryAgain: 2,
      enableOfflineQueue: true,
      lazyConnect: false,
      redisOptions: {
        ...client.options.redisOptions,
        autoResendUnfulfilledCommands: false,
        maxRetriesPerRequest: 0,
        commandTimeout: undefined,
        stringNumbers: false,
        keyPrefix: undefined,
      },
    });
  }

  /** pipelock's own Cluster connection, which routes the lock calls: the watch reads its slot table and masters. */
  get connection(): IoredisClusterClient {
    return this.#connection;
  }

  get isOpen(): boolean {
    return this.#connection.status !== 'end' && this.#connection.status !== 'close';
  }

  get isReady(): boolean {
    return this.#connection.status === 'ready';
  }

  protected route(_key: string | undefined, args: readonly string[]): Promise<unknown> {
    return this.#connection.call(...(args as [string, ...string[]]));
  }

  protected downShard(slot: number): string | undefined {
    const key = this.#connection.slots[slot]?.[0];
    if (key === undefined) return undefined;
    const node = this.#connection.nodes('master').find((master) => nodeKey(master) === key);
    if (node === undefined) return undefined;
    if (node.status === 'ready') seenReady.add(node);
    else if (seenReady.has(node)) return key;
    return undefined;
  }

  protected everyMaster(args: readonly string[]): Promise<unknown[]> {
    return Promise.all(this.#connection.nodes('master').map((node) => node.call(...(args as [string, ...string[]]))));
  }

  /** ioredis queues commands until the cluster is ready (enableOfflineQueue): nothing to wait for here. */
  protected async connected(): Promise<void> {
    if (!this.isOpen) throw new NodeUnavailableError(this.name);
    await Promise.resolve();
  }

  onReady(fn: () => void): () => void {
    return listen(this.#connection, 'ready', fn);
  }

  onError(fn: (error: Error) => void): () => void {
    return listen(this.#connection, 'error', fn);
  }

  async close(graceMs: number, keepGiven = false): Promise<void> {
    await Promise.all([quit(this.#connection as unknown as IoredisClient, graceMs),
      keepGiven ? undefined : quit(this.#given as unknown as IoredisClient, graceMs)]);
  }
}

/** The node key ioredis itself uses for a master (its `slots` table holds them). */
function nodeKey(node: IoredisClient): string {
  return hostPort(node.options.host, node.options.port);
}
