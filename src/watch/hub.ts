import type { RedisClient, RedisClusterClient } from '../clients.js';
import { ClusterWatch } from './cluster-watch.js';
import { Watch, type ChangeListener, type MemberWatch } from './watch.js';

/** What a member's watch is made from: a standalone @redis/client master, or an @redis/client cluster. */
export type WatchSource =
  | { readonly master: RedisClient }
  | { readonly cluster: RedisClusterClient };

/** The watch of member `index` (nothing is opened until a key is read on it). */
export function memberWatch(index: number, source: WatchSource, onChange: ChangeListener, onReady: (index: number) => void, onLost: (index: number) => void): MemberWatch {
  return 'cluster' in source
    ? new ClusterWatch(index, source.cluster, onChange, onReady, onLost)
    : new Watch(index, source.master, onChange, onReady, onLost);
}
