import calculateSlot from 'cluster-key-slot';
import { InvalidArgumentError } from '../../errors.js';

/**
 * The hash slot of a key: cluster-key-slot is the implementation ioredis and @redis/client both
 * route with (CRC16-XMODEM of the key, or of its first non-empty `{hash tag}`, mod 16384;
 * redis.io/docs/latest/operate/oss_and_stack/reference/cluster-spec/#hash-tags), so pipelock's
 * grouping can never disagree with the client that sends the call.
 */
export const slotOf: (key: string) => number = calculateSlot;

/**
 * On a Redis Cluster member, one operation's keys must share a slot: Redis refuses a script whose
 * declared keys span slots (CROSSSLOT, even with `allow-cross-slot-keys`, measured on 7.0.15), and
 * all-or-nothing across shards is not offered (see docs/deployments.md). Throws the typed error
 * that tells the user how to get one slot: a hash tag.
 */
export function checkOneSlot(keys: readonly string[], resources: readonly string[]): void {
  if (keys.length < 2) return;
  const slot = calculateSlot(keys[0]!);
  for (let i = 1; i < keys.length; i++) {
    if (calculateSlot(keys[i]!) !== slot) {
      throw new InvalidArgumentError(
        'resources',
        'must all hash to one slot when a member is a Redis Cluster (a lock is all-or-nothing on each member only within one shard): put them under one hash tag, e.g. "{order:42}:a" and "{order:42}:b"',
        resources,
      );
    }
  }
}

/**
 * The fencing counter of a resource on a cluster member: in the resource's slot, so that the one
 * script call taking the lock can bump its counter. The prefix has no `{`, so a resource with a
 * hash tag keeps it; one without gets its whole name as the tag.
 */
export function clusterCounterKey(resource: string): string {
  const plain = `pipelock:fence:${resource}`;
  if (calculateSlot(plain) === calculateSlot(resource)) return plain;
  const tagged = `pipelock:fence:{${resource}}`;
  if (calculateSlot(tagged) === calculateSlot(resource)) return tagged;
  throw new InvalidArgumentError('resources', 'must, for fencing on a Redis Cluster member, either carry a hash tag or contain no "}" (the counter key could not share the resource\'s slot)', resource);
}

/**
 * A key pipelock keeps beside a lock key `lockKey` (`head` + `key`: a waiting queue), in that key's
 * slot on a cluster member (as clusterCounterKey). Where no name shares the slot, the plain one:
 * the call using it then fails on that member, which the caller treats as that member's failure.
 */
export function sideKey(head: string, key: string, clustered: boolean, lockKey = key): string {
  const plain = head + key;
  if (!clustered) return plain;
  const slot = calculateSlot(lockKey);
  if (calculateSlot(plain) === slot) return plain;
  const tagged = `${head}{${key}}`;
  return calculateSlot(tagged) === slot ? tagged : plain;
}
