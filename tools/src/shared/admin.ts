/**
 * The tools' own short-lived connections to a master (probes, cleanup, doctor, inspect, fault
 * injection in bench/), never the connections under test. No reconnects: a dead master fails the
 * command at once instead of queueing it.
 */
import { RedisClient } from '@redis/client';
import { redactUrl } from './redact-url.js';

const kConnectTimeoutMs = 3_000;

// createClient() rebuilds its command class (~40 ms) whenever the options (url included) differ
// from the last call's; one factory builds it once for every master.
let factory: ReturnType<typeof RedisClient.factory> | undefined;

function open(url: string) {
  factory ??= RedisClient.factory();
  // TLS (rediss://) and AUTH (user:pass@) come from the URL itself.
  return factory({ url, socket: { connectTimeout: kConnectTimeoutMs, reconnectStrategy: false } });
}

export type AdminClient = ReturnType<typeof open>;

/** A master could not be reached (or refused us); `cause` is what the client said. */
export class ServerUnreachableError extends Error {
  override readonly name = 'ServerUnreachableError';
  readonly code = 'ERR_PIPELOCK_SERVER_UNREACHABLE';
  readonly url: string;

  constructor(url: string, cause: unknown) {
    super(`cannot reach ${url}: ${cause instanceof Error ? cause.message || cause.name : String(cause)}`, { cause });
    this.url = url;
  }
}

/** A connected admin client for `url`; the caller destroys it. Throws ServerUnreachableError, its URL redacted. */
export async function connectAdmin(url: string): Promise<AdminClient> {
  const client = open(url);
  // The first socket error says more than connect()'s rejection (ECONNREFUSED rather than "closed").
  let failure: unknown;
  client.on('error', (error: unknown) => {
    failure ??= error;
  });
  try {
    await client.connect();
  } catch (error) {
    throw new ServerUnreachableError(redactUrl(url), failure ?? error);
  }
  return client;
}

/** One short-lived connection to `url` for `fn`. */
export async function withClient<T>(url: string, fn: (client: AdminClient) => Promise<T>): Promise<T> {
  const client = await connectAdmin(url);
  try {
    return await fn(client);
  } finally {
    client.destroy();
  }
}
