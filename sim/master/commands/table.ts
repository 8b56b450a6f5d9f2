import type { Command } from '../command.js';
import { CLIENT } from './client.js';
import { HGET, HSET } from './hash.js';
import { DEL, EXISTS, PEXPIRE, PTTL, TIME, TYPE } from './keys.js';
import { EVAL, EVALSHA, SCRIPT } from './scripting.js';
import { GET, INCR, MGET, SET } from './strings.js';
import { ZADD, ZRANGE, ZREM, ZREMRANGEBYSCORE, ZSCORE } from './zset.js';

/**
 * Every command the simulated master knows: what pipelock's library sends (src/coalescer.ts,
 * src/script-replay.ts, src/fencing.ts, src/waiting/watch.ts, and the CLIENT TRACKING that
 * @redis/client sends for the watch's emitInvalidate) and every redis.call of its Lua
 * (src/scripts.ts, src/lean-script.ts, src/fencing.ts). Anything else is an unknown command.
 */
export const kCommands: ReadonlyMap<string, Command> = new Map(
  [
    GET, MGET, SET, INCR,
    DEL, EXISTS, TYPE, PTTL, PEXPIRE, TIME,
    ZADD, ZRANGE, ZSCORE, ZREM, ZREMRANGEBYSCORE,
    HGET, HSET,
    EVAL, EVALSHA, SCRIPT,
    CLIENT,
  ].map((command) => [command.name, command]),
);

const kByName = new Map<string, Command>();
for (const [name, command] of kCommands) kByName.set(name, command).set(name.toUpperCase(), command);

/** The command called `name` in any case (its usual spellings without lowercasing a string). */
export function commandNamed(name: string): Command | undefined {
  return kByName.get(name) ?? kCommands.get(name.toLowerCase());
}

/** Redis's arity rule: exactly `arity` words, or at least `-arity`. */
export function arityFits(command: Command, argc: number): boolean {
  return command.arity >= 0 ? argc === command.arity : argc >= -command.arity;
}
