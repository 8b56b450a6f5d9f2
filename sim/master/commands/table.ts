import type { Command } from '../command.js';
import { CLIENT } from './client.js';
import { HGET, HSET } from './hash.js';
import { DEL, EXISTS, PEXPIRE, PTTL, TIME, TYPE } from './keys.js';
import { LRANGE, LREM, LTRIM, RPUSH } from './list.js';
import { EVAL, EVALSHA, SCRIPT } from './scripting.js';
import { DELIFEQ, GET, INCR, MGET, SET } from './strings.js';
import { ZADD, ZRANGE, ZREM, ZREMRANGEBYSCORE, ZSCORE } from './zset.js';

/**
 * Every command the simulated master knows: what pipelock's library sends (src/coalescer.ts,
 * src/script-replay.ts, src/fencing.ts, src/waiting/watch.ts, and the CLIENT TRACKING that
 * @redis/client sends for the watch's emitInvalidate) and every redis.call of its Lua
 * (src/scripts.ts, src/lean-script.ts, src/fencing.ts). Anything else is an unknown command;
 * a known command's options that pipelock never sends answer "… is not simulated".
 */
export const kCommands: ReadonlyMap<string, Command> = new Map(
  [
    GET, MGET, SET, INCR,
    DEL, EXISTS, TYPE, PTTL, PEXPIRE, TIME,
    ZADD, ZRANGE, ZSCORE, ZREM, ZREMRANGEBYSCORE,
    HGET, HSET,
    RPUSH, LTRIM, LRANGE, LREM,
    EVAL, EVALSHA, SCRIPT,
    CLIENT,
  ].map((command) => [command.name, command]),
);

/** What a Valkey 9 master adds (not yet proven against a real Valkey). */
const kValkeyCommands: ReadonlyMap<string, Command> = new Map([[DELIFEQ.name, DELIFEQ]]);

/** The commands of a master, found by name in any case (the usual spellings without lowercasing). */
export class CommandTable {
  readonly #byName = new Map<string, Command>();
  readonly #lower: ReadonlyMap<string, Command>;

  constructor(valkey: boolean) {
    const all = new Map([...kCommands, ...(valkey ? kValkeyCommands : [])]);
    for (const [name, command] of all) this.#byName.set(name, command).set(name.toUpperCase(), command);
    this.#lower = all;
  }

  named(name: string): Command | undefined {
    return this.#byName.get(name) ?? this.#lower.get(name.toLowerCase());
  }
}

/** Redis's arity rule: exactly `arity` words, or at least `-arity`. */
export function arityFits(command: Command, argc: number): boolean {
  return command.arity >= 0 ? argc === command.arity : argc >= -command.arity;
}
