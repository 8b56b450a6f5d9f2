import { createHash } from 'node:crypto';
import type { MasterClient, RedisClient } from '../clients.js';
import { InvalidArgumentError } from '../errors.js';
import { isRedisCluster } from '../transport/cluster/detect.js';
import { isIoredisClient } from '../transport/ioredis.js';
import { NO_COMMAND_TIMEOUT } from '../transport/open.js';

/**
 * The storage side: a fenced write to a hash `{ fence, value }`, refused when the stored fence is above the given
 * one; an equal fence is the holder's own. In SQL: `UPDATE t SET value = $1, fence = $2 WHERE id = $3 AND fence <= $2`.
 */
export const FENCED_WRITE_SCRIPT = `local last = tonumber(redis.call('HGET', KEYS[1], 'fence')) or -1
if last > tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'fence', ARGV[1], 'value', ARGV[2])
return 1`;
const FENCED_WRITE_SHA = createHash('sha1').update(FENCED_WRITE_SCRIPT).digest('hex');

/** Writes `value` under `key` unless a newer fence wrote there; `client` is the store's (@redis/client or ioredis). */
export async function fencedWrite(client: MasterClient, key: string, fence: number, value: string): Promise<boolean> {
  let send: (args: string[]) => Promise<unknown>;
  if (isRedisCluster(client)) {
    // A cluster routes the call to the shard owning the key (and follows MOVED/ASK).
    send = (args) => client.sendCommand(key, false, args, NO_COMMAND_TIMEOUT);
  } else if (isIoredisClient(client)) {
    if (client.status === 'end') throw new InvalidArgumentError('client', 'must be open (its status is "end")', 'a closed client');
    send = (args) => client.call(...(args as [string, ...string[]]));
  } else {
    const given = client as Partial<RedisClient> | null;
    if (typeof given?.sendCommand !== 'function')
      throw new InvalidArgumentError('client', 'must be an @redis/client or ioredis client', client);
    if (given.isOpen !== true) throw new InvalidArgumentError('client', 'must be open (call client.connect() first)', 'a closed client');
    send = (args) => client.sendCommand(args, NO_COMMAND_TIMEOUT);
  }
  if (typeof key !== 'string' || key.length === 0) throw new InvalidArgumentError('key', 'must be a non-empty string', key);
  if (!Number.isSafeInteger(fence) || fence <= 0)
    throw new InvalidArgumentError('fence', 'must be a positive safe integer (a lock.fence)', fence);
  if (typeof value !== 'string') throw new InvalidArgumentError('value', 'must be a string', value);
  const args = [key, String(fence), value];
  let reply: unknown;
  try {
    reply = await send(['EVALSHA', FENCED_WRITE_SHA, '1', ...args]);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    reply = await send(['EVAL', FENCED_WRITE_SCRIPT, '1', ...args]);
  }
  // ioredis' stringNumbers answers '1'.
  return reply === 1 || reply === '1';
}
