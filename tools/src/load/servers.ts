import { withClient } from '../shared/admin.js';
import { redactUrl } from '../shared/redact-url.js';
import { clusterMasterUrls, isClusterEntry, plainUrl } from './members.js';

const kScanCount = '1000';

/**
 * Connects to every master (a cluster entry: its seed) once, failing with the first unreachable one,
 * and returns each one's version: `7.0.15` for Redis (as result files have always held it), `valkey 9.0.0`
 * for Valkey, whose redis_version is the Redis version it is compatible with (7.2.4), not its own. A
 * plain entry that is a Redis Cluster node fails the run before it starts: as a standalone master it
 * would answer MOVED for most keys and no cycle would complete there.
 */
export async function probeServers(urls: readonly string[]): Promise<string[]> {
  return Promise.all(urls.map((url) => withClient(plainUrl(url), async (client) => {
    const info = await client.info('server');
    if (!isClusterEntry(url) && /^cluster_enabled:1/m.test(await client.info('cluster'))) {
      const { host } = new URL(url);
      throw new Error(`${redactUrl(url)} is a Redis Cluster node, not a standalone master: give the cluster as one member with `
        + `redis+cluster://${host} in --servers`);
    }
    return serverVersion(info);
  })));
}

/** The server's own name and version from INFO server: Valkey's valkey_version, else redis_version. */
export function serverVersion(info: string): string {
  const valkey = /^valkey_version:(.+)$/m.exec(info)?.[1]?.trim();
  if (valkey !== undefined) return `valkey ${valkey}`;
  return /^redis_version:(.+)$/m.exec(info)?.[1]?.trim() ?? 'unknown';
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
