import { InvalidArgumentError } from '../errors.js';
import type { IoredisClient } from '../clients.js';
import type { Transport } from './transport.js';
import { closeWithin } from './close.js';
import { ioredisName } from './names.js';

/** An ioredis `Redis` (not @redis/client, which has `isOpen`; not an ioredis `Cluster`). */
export function isIoredisClient(value: unknown): value is IoredisClient {
  if (typeof value !== 'object' || value === null) return false;
  const client = value as Partial<IoredisClient> & { isOpen?: unknown };
  return typeof client.status === 'string' && typeof client.duplicate === 'function'
    && typeof client.call === 'function' && client.isOpen === undefined;
}

/** The ioredis client states in which it has not given up: it is, or will be, connected. */
const LIVE = new Set(['wait', 'connecting', 'connect', 'ready', 'reconnecting']);

/** Checks one `clients[i]` entry that looks like ioredis. */
export function checkIoredisClient(client: IoredisClient, name: string): void {
  if ((client as { isCluster?: unknown }).isCluster === true) {
    throw new InvalidArgumentError(name,
      'must be an ioredis Redis, not a Cluster (give each independent master its own client)', 'an ioredis Cluster');
  }
  if (!LIVE.has(client.status)) {
    throw new InvalidArgumentError(name,
      'must be open or connecting (its status is "end" or "close": create a new ioredis client, or pass a URL)',
        `an ioredis client with status "${client.status}"`);
  }
}

/**
 * A transport over an ioredis `Redis`, sending on its own `duplicate()` (same host, TLS, auth, Sentinel, retries) with
 * the options that change what a lock command means set pipelock's way: no resend after a reconnect, no
 * auto-pipelining, no command timeout, numbers as numbers, no keyPrefix. Why each: docs/decisions/0012, "ioredis.ts".
 */
export class IoredisTransport implements Transport {
  readonly name: string;
  readonly #connection: IoredisClient;
  readonly #ready = new Set<() => void>();
  readonly #errors = new Set<(error: Error) => void>();

  constructor(readonly client: IoredisClient, index: number) {
    this.name = ioredisName(client, index);
    this.#connection = client.duplicate({
      autoResendUnfulfilledCommands: false,
      maxRetriesPerRequest: 0,
      enableAutoPipelining: false,
      commandTimeout: undefined,
      stringNumbers: false,
      keyPrefix: undefined,
      lazyConnect: false,
      enableOfflineQueue: true,
      readOnly: false,
      monitor: false,
    });
    // One permanent listener each; ours are dispatched from our own sets. ioredis emits 'error'
    // through silentEmit, which logs to stderr when nobody listens: this connection is ours, so its
    // errors go to pipelock's node-error reporting, never to the console.
    this.#connection.on('ready', () => { for (const listener of this.#ready) listener(); });
    this.#connection.on('error', (error: Error) => { for (const listener of this.#errors) listener(error); });
  }

  get isOpen(): boolean {
    return LIVE.has(this.#connection.status);
  }

  get isReady(): boolean {
    return this.#connection.status === 'ready';
  }

  send(args: readonly string[]): Promise<unknown> {
    return this.#connection.call(...(args as [string, ...string[]]));
  }

  onReady(listener: () => void): () => void {
    this.#ready.add(listener);
    return () => this.#ready.delete(listener);
  }

  onError(listener: (error: Error) => void): () => void {
    this.#errors.add(listener);
    return () => this.#errors.delete(listener);
  }

  async close(graceMs: number, keepGiven = false): Promise<void> {
    await Promise.all([quit(this.#connection, graceMs), keepGiven ? undefined : quit(this.client, graceMs)]);
  }
}

/** QUIT (pending replies first) for at most `graceMs`, then drop the connection; no reconnect either way. */
export async function quit(connection: IoredisClient, graceMs: number): Promise<void> {
  if (connection.status === 'end') return;
  if (connection.status !== 'ready') {
    connection.disconnect(false);
    return;
  }
  // QUIT's reply comes before the socket closes: done once the client says 'end', as quit() promises.
  await closeWithin(graceMs, async () => {
    await connection.quit();
    if ((connection.status) !== 'end') await new Promise((resolve) => connection.once('end', resolve));
  }, () => { connection.disconnect(false); });
}
