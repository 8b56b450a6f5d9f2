import { connectAdmin, ServerUnreachableError, type AdminClient } from '../shared/admin.js';
import { redactUrl } from '../shared/redact-url.js';

/** A read-only operator connection (shared/admin.ts: no reconnects, so a dead master fails the command instead of queueing it). */
export interface OpsClient {
  sendCommand(args: readonly string[]): Promise<unknown>;
}

export interface Connection {
  /** The URL as given, credentials redacted, for reports. */
  readonly url: string;
  readonly client: OpsClient | undefined;
  /** Why it could not connect. */
  readonly error: Error | undefined;
}

/** Connects to every URL at once; an unreachable master is reported, not thrown. `names`: each one's name as the user gave it. */
export async function connectAll(urls: readonly string[], names: readonly string[] =
  urls): Promise<{ connections: Connection[]; close: () => void }> {
  const clients: AdminClient[] = [];
  const connections = await Promise.all(urls.map(async (given, i): Promise<Connection> => {
    const url = redactUrl(names[i] ?? given);
    try {
      const client = await connectAdmin(given);
      clients.push(client);
      return { url, client: client as unknown as OpsClient, error: undefined };
    } catch (error) {
      // The report names the URL itself: the client's own words are the error.
      const cause = error instanceof ServerUnreachableError ? error.cause : error;
      return { url, client: undefined, error: cause instanceof Error ? cause : new Error(String(cause)) };
    }
  }));
  return {
    connections,
    close: () => {
      for (const client of clients) if (client.isOpen) client.destroy();
    },
  };
}

/** The reply of a command, or the Error it failed with (an ACL denial is an answer worth reporting). */
export async function attempt(client: OpsClient, args: readonly string[]): Promise<unknown> {
  try {
    return await client.sendCommand(args);
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

/** `field:value` lines of an INFO section as a map. */
export function parseInfo(text: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (typeof text !== 'string') return out;
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0 && !line.startsWith('#')) out.set(line.slice(0, colon), line.slice(colon + 1).trim());
  }
  return out;
}
