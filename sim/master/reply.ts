/**
 * Replies as the simulated master makes them, and as a client sees them.
 *
 * Inside the master a reply keeps the distinctions Lua sees — a status ('OK', a TYPE) is `{ok=…}`
 * to a script and a plain string to a client; an error is a cheap `Fail` until it reaches a
 * client, where it becomes a `RedisReplyError` (an Error, with a stack) — so a script's many
 * pcall'd WRONGTYPEs cost no stack captures.
 */

/** A simple-string reply. */
export class Status {
  constructor(readonly text: string) {}
}

/** An error reply inside the master: Redis's text, e.g. 'WRONGTYPE Operation against …'. */
export class Fail {
  constructor(readonly message: string) {}
}

/** What a command answers inside the master (RESP2 to scripts, the connection's RESP to clients). */
export type Value = string | number | null | Status | Fail | readonly Value[];

/** An error reply as a client receives it: `message` is Redis's text, exactly. */
export class RedisReplyError extends Error {
  override readonly name = 'RedisReplyError';
}

/**
 * What a client resolves with, as @redis/client hands replies to pipelock: strings (bulk and
 * simple), numbers (integers, and RESP3 doubles), null, arrays, or a RedisReplyError.
 */
export type Reply = string | number | null | RedisReplyError | readonly Reply[];

export const OK = new Status('OK');

export const WRONGTYPE = new Fail('WRONGTYPE Operation against a key holding the wrong kind of value');
export const NOT_INTEGER = new Fail('ERR value is not an integer or out of range');
export const NOT_FLOAT = new Fail('ERR value is not a valid float');
export const SYNTAX = new Fail('ERR syntax error');
export const NOSCRIPT = new Fail('NOSCRIPT No matching script. Please use EVAL.');

/** Redis's arity error; `name` as Redis spells it ('get', 'script|load'). */
export function arityError(name: string): Fail {
  return new Fail(`ERR wrong number of arguments for '${name}' command`);
}

/** A form of a known command that the simulation does not implement: loud, never a silent difference. */
export function notSimulated(what: string): Fail {
  return new Fail(`ERR pipelock sim: ${what} is not simulated`);
}

/** The reply a client receives. */
export function toReply(value: Value): Reply {
  if (value === null || typeof value === 'string' || typeof value === 'number') return value;
  if (value instanceof Status) return value.text;
  if (value instanceof Fail) return new RedisReplyError(value.message);
  return value.map(toReply);
}
