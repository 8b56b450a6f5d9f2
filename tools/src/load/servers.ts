import { RedisClient } from '@redis/client';
import { clusterMasterUrls, isClusterEntry, plainUrl } from './members.js';

const kConnectTimeoutMs = 3_000;
const kScanCount = '1000';

/** A master given with --servers could not be reached (or refused us) before the run. */
export class ServerUnreachableError extends Error {
  override readonly name = 'ServerUnreachableError';
  readonly code = 'ERR_PIPELOCK_SERVER_UNREACHABLE';
  readonly url: string;

  constructor(url: string, cause: unknown) {
    super(`cannot reach ${url}: ${cause instanceof Error ? cause.message || cause.name : String(cause)}`, { cause });
    this.url = url;
  }
}

/** The URL without its credentials, for messages, tables and JSON. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.username === '' && parsed.password === '') return url;
    parsed.username = '';
    parsed.password = '';
    return parsed.href.replace('//', '//***@');
  } catch {
    return '(unparseable URL)';
  }
}

// createClient() rebuilds its command class (~40 ms) whenever the options (url included) differ
// from the last call's; one factory builds it once for every master.
let factory: ReturnType<typeof RedisClient.factory> | undefined;

function open(url: string) {
  factory ??= RedisClient.factory();
  // TLS (rediss://) and AUTH (user:pass@) come from the URL itself.
  return factory({ url, socket: { connectTimeout: kConnectTimeoutMs, reconnectStrategy: false } });
}

/** One short-lived connection to `url` for `fn` (admin work: probes, cleanup, fault injection). */
export async function withClient<T>(url: string, fn: (client: ReturnType<typeof open>) => Promise<T>): Promise<T> {
  const client = open(url);
  let failure: unknown;
  client.on('error', (error: unknown) => {
    failure ??= error;
  });
  try {
    await client.connect();
  } catch (error) {
    throw new ServerUnreachableError(redactUrl(url), failure ?? error);
  }
  try {
    return await fn(client);
  } finally {
    client.destroy();
  }
}

/** Connects to every master (a cluster entry: its seed) once, failing with the first unreachable one, and returns each one's redis_version. */
export async function probeServers(urls: readonly string[]): Promise<string[]> {
  return Promise.all(urls.map((url) => withClient(plainUrl(url), async (client) => {
    const info = await client.info('server');
    return /^redis_version:(.+)$/m.exec(info)?.[1]?.trim() ?? 'unknown';
  })));
}

/** Deletes every key under `prefix` on every master (what a run left behind, e.g. locks it could not release); returns how many. */
export async function removeKeys(urls: readonly string[], prefix: string): Promise<number> {
  const pattern = `${prefix}*`;
  // A cluster entry's keys are spread over its shards: scan each of its masters.
  const expanded = await Promise.all(urls.map(async (url) => isClusterEntry(url)
    ? clusterMasterUrls(plainUrl(url), await withClient(plainUrl(url), (client) => client.sendCommand<string>(['CLUSTER', 'NODES'])))
    : [url]));
  const counts = await Promise.all(expanded.flat().map((url) => withClient(url, async (client) => {
    let removed = 0;
    let cursor = '0';
    do {
      const [next, keys] = await client.sendCommand<[string, string[]]>(['SCAN', cursor, 'MATCH', pattern, 'COUNT', kScanCount]);
      cursor = next;
      if (keys.length > 0) removed += Number(await client.sendCommand(['UNLINK', ...keys]));
    } while (cursor !== '0');
    return removed;
  })));
  return counts.reduce((a, b) => a + b, 0);
}
