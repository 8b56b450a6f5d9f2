import calculateSlot from 'cluster-key-slot';
import { InvalidArgumentError } from '../../errors.js';

/**
 * The hash slot of a key, by cluster-key-slot, which both ioredis and @redis/client route with, so pipelock's
 * grouping never disagrees with the client that sends the call.
 */
export const slotOf: (key: string) => number = calculateSlot;

/**
 * On a cluster member one operation's keys must share a slot (CROSSSLOT refuses others; docs/deployments.md): throws
 * the typed error that says to use a hash tag.
 */
export function checkOneSlot(keys: readonly string[], resources: readonly string[]): void {
  if (keys.length < 2) return;
  const slot = calculateSlot(keys[0]!);
  for (let i = 1; i < keys.length; i++) {
    if (calculateSlot(keys[i]!) !== slot) {
      throw new InvalidArgumentError(
        'resources',
        'must all hash to one slot when a member is a Redis Cluster (a lock is all-or-nothing on each member only within one shard): put '
          + 'them under one hash tag, e.g. "{order:42}:a" and "{order:42}:b"',
        resources,
      );
    }
  }
}

/**
 * A resource's fencing counter on a cluster member, in the resource's slot so one script call bumps it. The prefix
 * has no `{`: a hash tag is kept, else the whole name is the tag.
 */
export function clusterCounterKey(resource: string): string {
  const plain = `pipelock:fence:${resource}`;
  if (calculateSlot(plain) === calculateSlot(resource)) return plain;
  const tagged = `pipelock:fence:{${resource}}`;
  if (calculateSlot(tagged) === calculateSlot(resource)) return tagged;
  throw new InvalidArgumentError('resources',
    'must, for fencing on a Redis Cluster member, either carry a hash tag or contain no "}" (the counter key could not share the '
      + 'resource\'s slot)', resource);
}

/**
 * A key kept beside `lockKey` (`head` + `key`), in its slot on a cluster member; where no name shares the slot, the
 * plain one, whose call then fails on that member.
 */
export function sideKey(head: string, key: string, clustered: boolean, lockKey = key): string {
  const plain = head + key;
  if (!clustered) return plain;
  const slot = calculateSlot(lockKey);
  if (calculateSlot(plain) === slot) return plain;
  const tagged = `${head}{${key}}`;
  return calculateSlot(tagged) === slot ? tagged : plain;
}
