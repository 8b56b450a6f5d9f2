/**
 * `--servers` entries that name a Redis Cluster member: `redis+cluster://host:port` (or
 * `rediss+cluster://`) is one cluster, found from that one seed node (a cluster client discovers
 * the rest with CLUSTER SLOTS), and counts as one Redlock member like any other entry.
 */
const kClusterScheme = /^(rediss?)\+cluster:/;

export function isClusterEntry(entry: string): boolean {
  return kClusterScheme.test(entry);
}

/** The plain redis:// URL of an entry (a cluster entry's seed node). */
export function plainUrl(entry: string): string {
  return entry.replace(kClusterScheme, '$1:');
}

/** A Redis Cluster as one Redlock member, in the shape `new Redlock()` takes: its seed nodes. */
export interface ClusterSeeds {
  readonly cluster: readonly string[];
}

/** What Redlock takes for an entry: the URL, or `{ cluster: [seed] }`. */
export function memberOf(entry: string): string | ClusterSeeds {
  return isClusterEntry(entry) ? { cluster: [plainUrl(entry)] } : entry;
}

/**
 * The master URLs of a cluster from its CLUSTER NODES reply (lines `id ip:port@cport flags …`),
 * with the seed's scheme and credentials, for admin work on every shard (cleanup).
 */
export function clusterMasterUrls(seed: string, nodes: string): string[] {
  const urls: string[] = [];
  for (const line of nodes.split('\n')) {
    const [, address, flags] = line.trim().split(' ');
    if (address === undefined || flags === undefined || !flags.split(',').includes('master') || flags.includes('fail')) continue;
    const hostPort = address.split('@')[0]!;
    const cut = hostPort.lastIndexOf(':');
    const url = new URL(seed);
    url.hostname = hostPort.slice(0, cut) || url.hostname;
    url.port = hostPort.slice(cut + 1);
    urls.push(url.href.replace(/\/$/, ''));
  }
  return urls;
}
