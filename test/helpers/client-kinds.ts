import { RedisClient } from '@redis/client';
import { Redis } from 'ioredis';
import { Redis as Redis6 } from 'ioredis6';
import { Redis as Valkey } from 'iovalkey';
import type { RedisClient as AnyRedisClient } from '../../src/clients.js';

/** The client libraries a user can hand pipelock; suites that state a contract run once per kind. */
export const CLIENT_KINDS = ['@redis/client', 'ioredis', 'ioredis 6', 'iovalkey'] as const;
export type ClientKind = (typeof CLIENT_KINDS)[number];

/** What a suite needs of the clients a user created: pass them to Redlock, ask whether each is open. */
export interface UserClients {
  readonly kind: ClientKind;
  readonly clients: readonly (AnyRedisClient | Redis | Redis6 | Valkey)[];
  isOpen(index: number): boolean;
  /** Closes whatever the test left open (quit() is itself under test, so this tolerates closed ones). */
  close(): Promise<void>;
}

const create = RedisClient.factory({});

/** Connected clients of `kind`, one per URL, as a node-redlock v5 user would build them. */
export async function userClients(kind: ClientKind, urls: readonly string[]): Promise<UserClients> {
  if (kind !== '@redis/client') {
    // ioredis (and its fork iovalkey) connects on construction; its default retry and offline-queue settings, untouched.
    const clients = urls.map((url) => (kind === 'ioredis' ? new Redis(url) : kind === 'iovalkey' ? new Valkey(url) : new Redis6(url)));
    for (const client of clients) client.on('error', () => undefined); // the test's own listener, as an app would have
    await Promise.all(clients.map((client) => (client.status === 'ready' ? Promise.resolve() : new Promise((resolve) => client.once('ready', resolve)))));
    return {
      kind,
      clients,
      isOpen: (i) => clients[i]!.status !== 'end',
      close: async () => {
        await Promise.allSettled(clients.map((client) => (client.status === 'end' ? Promise.resolve() : client.quit())));
      },
    };
  }
  const clients = urls.map((url) => create({ url }));
  for (const client of clients) client.on('error', () => undefined);
  await Promise.all(clients.map((client) => client.connect()));
  return {
    kind,
    clients,
    isOpen: (i) => clients[i]!.isOpen,
    close: async () => {
      await Promise.allSettled(clients.map((client) => (client.isOpen ? client.close() : Promise.resolve())));
    },
  };
}
