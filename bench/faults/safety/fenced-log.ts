import { createHash } from 'node:crypto';
import { RedisClient } from '@redis/client';
import { WRITE_ACCEPTED, WRITE_FAILED, WRITE_REJECTED } from './ledger.js';

/**
 * The storage a safety run's holders write to: an append-only log per resource on a Redis that is
 * not one of the lock's masters. Like fencedWrite(), it refuses an entry whose fence is below one it
 * has accepted for that resource (an equal one is the same holder's), and counts what it rejects itself, so the tally does not rest on
 * the holders' word. The fence is compared as a Lua number: exact below 2^53 (fences are ~2^51).
 */
export const FENCED_LOG_SCRIPT = `local last = tonumber(redis.call('HGET', KEYS[1], 'fence')) or -1
if last > tonumber(ARGV[1]) then
  redis.call('HINCRBY', KEYS[1], 'rejected', 1)
  return 0
end
redis.call('HSET', KEYS[1], 'fence', ARGV[1])
redis.call('RPUSH', KEYS[2], ARGV[1] .. ' ' .. ARGV[2])
return 1`;
const kSha = createHash('sha1').update(FENCED_LOG_SCRIPT).digest('hex');

/** The log server's keys for a resource: its state hash { fence, rejected } and its entry list. */
export function fencedLogKeys(resource: number): [state: string, log: string] {
  return [`fenced-log:${resource}:state`, `fenced-log:${resource}:entries`];
}

let factory: ReturnType<typeof RedisClient.factory> | undefined;

export class FencedLog {
  readonly #client;

  private constructor(client: ReturnType<NonNullable<typeof factory>>) {
    this.#client = client;
  }

  static async connect(url: string): Promise<FencedLog> {
    factory ??= RedisClient.factory();
    const client = factory({ url });
    // A failure shows as a failed write (WRITE_FAILED), counted by the checker; the event must have a listener.
    client.on('error', () => undefined);
    await client.connect();
    await client.sendCommand(['SCRIPT', 'LOAD', FENCED_LOG_SCRIPT]);
    return new FencedLog(client);
  }

  /** Appends `entry` under `fence`: accepted, rejected as stale, or failed (the log server did not answer). */
  async write(resource: number, fence: number, entry: string): Promise<typeof WRITE_ACCEPTED | typeof WRITE_REJECTED | typeof WRITE_FAILED> {
    try {
      const reply = await this.#client.sendCommand<number>(['EVALSHA', kSha, '2', ...fencedLogKeys(resource), String(fence), entry]);
      return reply === 1 ? WRITE_ACCEPTED : WRITE_REJECTED;
    } catch {
      return WRITE_FAILED;
    }
  }

  close(): void {
    this.#client.destroy();
  }
}
