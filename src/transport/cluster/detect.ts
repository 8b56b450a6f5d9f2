import type { ClusterSeeds, RedisClusterClient } from '../../clients.js';

/** An @redis/client cluster (`createCluster()`): it routes by key and lists its masters and slots. */
export function isRedisCluster(value: unknown): value is RedisClusterClient {
  const candidate = value as Partial<RedisClusterClient> | null;
  return typeof candidate === 'object' && candidate !== null && typeof candidate.nodeClient === 'function'
    && Array.isArray(candidate.masters) && candidate.slots !== undefined;
}

/** `{ cluster: ['redis://…', …] }`: a cluster named by seed URLs. */
export function isClusterSeeds(value: unknown): value is ClusterSeeds {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'cluster' in value && Object.keys(value).length === 1;
}
