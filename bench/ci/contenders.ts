/**
 * The two contenders of bench:ci, opened in this process: pipelock through its public API (as in
 * bench/peers), and the per-command quorum ceiling (raw @redis/client, no lock logic).
 */
import { pipelockContender } from '../peers/adapters.js';
import { TTL_MS, type DrainableContender } from '../peers/contender.js';
import { rawPerCommand } from '../peers/raw.js';
import type { RedisClient } from '../../src/clients.js';

/**
 * retryCount 0 as in bench/peers. nodeTimeout 5 s instead of 250 ms: on a 2-core machine shared
 * with other jobs a master can go unanswered for longer than 250 ms, and a gate must not fail on
 * that; the hot path is the same whatever the timeout.
 */
export async function openPipelock(urls: readonly string[]): Promise<DrainableContender & { readonly clients: readonly RedisClient[] }> {
  const { Redlock } = await import('../../src/index.js');
  const redlock = new Redlock(urls, { retryCount: 0, nodeTimeout: 5_000 });
  // The connections pipelock opened from the URLs (lean ones by default, @redis/client under connection: 'client'): both have sendCommand.
  const clients = [...redlock.clients].filter((client): client is RedisClient => 'sendCommand' in client && !('masters' in client));
  return {
    ...await pipelockContender(redlock),
    clients,
    async drain() {
      await Promise.all(clients.map((client) => client.sendCommand(['PING'], { timeout: 0 })));
    },
  };
}

export function openCeiling(urls: readonly string[]): Promise<DrainableContender> {
  return rawPerCommand(urls, TTL_MS, false);
}
