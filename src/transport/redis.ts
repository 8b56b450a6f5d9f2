import type { RedisClientOptions } from '@redis/client';
import type { RedisClient } from '../clients.js';
import { redisClientName } from './names.js';
import { closeClient, connectHeard, NO_COMMAND_TIMEOUT, openClient } from './open.js';
import type { Transport } from './transport.js';

type Event = 'ready' | 'error';
// Node passes each event's own arguments; the table only forwards them.
type Listener = (error: Error) => void;

/**
 * Per client, one permanent listener per event, dispatching through this table: after `off()` empties a
 * `createClient()` object's listeners, later ones never fire (@redis/client 6.3.1; docs/decisions/0012, "redis.ts").
 */
const tables = new WeakMap<RedisClient, Map<Event, Set<Listener>>>();

function subscribe(client: RedisClient, event: Event, fn: Listener): () => void {
  let table = tables.get(client);
  if (table === undefined) {
    table = new Map();
    tables.set(client, table);
  }
  let listeners = table.get(event);
  if (listeners === undefined) {
    const set = new Set<Listener>();
    listeners = set;
    table.set(event, set);
    client.on(event, (error: Error) => {
      for (const listener of set) listener(error);
    });
  }
  listeners.add(fn);
  return () => {
    table.get(event)?.delete(fn);
  };
}

/** The Transport over an @redis/client client (the user's, or one pipelock opened from a URL). */
export class RedisTransport implements Transport {
  readonly name: string;

  constructor(readonly client: RedisClient, index: number) {
    this.name = redisClientName(client, index);
  }

  /** Opens and connects a client from a URL; `onError` hears it from the start (an unheard 'error' crashes the process). */
  static open(url: string, index: number, clientOptions: RedisClientOptions | undefined, onError: (error: Error) => void): RedisTransport {
    const transport = new RedisTransport(openClient(url, clientOptions), index);
    transport.onError(onError);
    connectHeard(transport.client as unknown as { connect(): Promise<unknown> }, onError);
    return transport;
  }

  get isOpen(): boolean {
    return this.client.isOpen;
  }

  get isReady(): boolean {
    return this.client.isReady;
  }

  send(args: readonly string[]): Promise<unknown> {
    return this.client.sendCommand(args, NO_COMMAND_TIMEOUT);
  }

  onReady(fn: () => void): () => void {
    return subscribe(this.client, 'ready', fn);
  }

  onError(fn: (error: Error) => void): () => void {
    return subscribe(this.client, 'error', fn);
  }

  close(graceMs: number, keepGiven = false): Promise<void> {
    // pipelock opens nothing beside a client it was given: keeping it means closing nothing.
    return keepGiven ? Promise.resolve() : closeClient(this.client, graceMs);
  }
}
