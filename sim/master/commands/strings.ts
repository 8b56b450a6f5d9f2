import { firstKey, allKeys, type Command, type Context } from '../command.js';
import { NEVER } from '../keyspace.js';
import { kMaxLongLong, parseInteger, parseLongLong } from '../numbers.js';
import { Fail, NOT_INTEGER, OK, SYNTAX, WRONGTYPE, notSimulated, type Value } from '../reply.js';

/** SET's options that Redis 7.0 knows and pipelock never sends. */
const kOtherSetOptions = new Set(['xx', 'ex', 'exat', 'pxat', 'keepttl', 'get']);

/** An expire argument as Redis parses it: a positive integer that does not overflow `nowMs + ms`. */
export function expireAt(ctx: Context, text: string, command: string): number | Fail {
  const ms = parseInteger(text);
  if (ms === undefined) return NOT_INTEGER;
  // Past 2^53 only BigInt tells whether now + ms overflows a signed 64-bit integer.
  if (ms <= 0 || (ms > 2 ** 53 && BigInt(text) > kMaxLongLong - BigInt(ctx.nowMs))) return new Fail(`ERR invalid expire time in '${command}' command`);
  return ctx.nowMs + ms;
}

export const GET: Command = {
  name: 'get', arity: 2, readonly: true, noscript: false, keys: firstKey,
  run(ctx, args): Value {
    const entry = ctx.db.lookup(args[1]!, ctx.nowMs);
    if (entry === undefined) return null;
    return entry.type === 'string' ? entry.value : WRONGTYPE;
  },
};

export const MGET: Command = {
  name: 'mget', arity: -2, readonly: true, noscript: false, keys: allKeys,
  run(ctx, args): Value {
    const values: Value[] = [];
    for (let i = 1; i < args.length; i++) {
      const entry = ctx.db.lookup(args[i]!, ctx.nowMs);
      values.push(entry?.type === 'string' ? entry.value : null);
    }
    return values;
  },
};

/**
 * `SET key value [NX] [PX ms]`: the forms pipelock sends; and on a Valkey master `IFEQ value`
 * (Valkey 8.1: set only over a string equal to `value`; WRONGTYPE over another type; not with NX),
 * which no differential has proven yet.
 */
export const SET: Command = {
  name: 'set', arity: -3, readonly: false, noscript: false,
  run(ctx, args): Value {
    let nx = false;
    let px: string | undefined;
    let ifeq: string | undefined;
    for (let j = 3; j < args.length; j++) {
      const option = args[j]!.toLowerCase();
      const hasNext = j + 1 < args.length;
      if (option === 'nx' && ifeq === undefined) nx = true;
      else if (option === 'px' && hasNext) px = args[++j];
      else if (option === 'ifeq' && hasNext && ctx.server.valkey && !nx && ifeq === undefined) ifeq = args[++j];
      else if (kOtherSetOptions.has(option)) return notSimulated(`SET option '${option.toUpperCase()}'`);
      else return SYNTAX;
    }
    let expires = NEVER;
    if (px !== undefined) {
      const at = expireAt(ctx, px, 'set');
      if (at instanceof Fail) return at;
      expires = at;
    }
    const key = args[1]!;
    if (nx && ctx.db.lookup(key, ctx.nowMs) !== undefined) return null;
    if (ifeq !== undefined) {
      const found = ctx.db.lookup(key, ctx.nowMs);
      if (found !== undefined && found.type !== 'string') return WRONGTYPE;
      if (found?.value !== ifeq) return null;
    }
    ctx.db.put(key, { type: 'string', value: args[2]!, expireAt: expires });
    ctx.signal(key);
    return OK;
  },
};

/** Valkey 9's `DELIFEQ key value`: 1 when the key held exactly `value` (and is gone), else 0; not yet proven by a differential. */
export const DELIFEQ: Command = {
  name: 'delifeq', arity: 3, readonly: false, noscript: false,
  run(ctx, args): Value {
    const key = args[1]!;
    const entry = ctx.db.lookup(key, ctx.nowMs);
    if (entry === undefined) return 0;
    if (entry.type !== 'string') return WRONGTYPE;
    if (entry.value !== args[2]) return 0;
    ctx.db.delete(key);
    ctx.signal(key);
    return 1;
  },
};

export const INCR: Command = {
  name: 'incr', arity: 2, readonly: false, noscript: false,
  run(ctx, args): Value {
    const key = args[1]!;
    const entry = ctx.db.lookup(key, ctx.nowMs);
    let value = 0n;
    if (entry !== undefined) {
      if (entry.type !== 'string') return WRONGTYPE;
      const parsed = parseLongLong(entry.value);
      if (parsed === undefined) return NOT_INTEGER;
      value = parsed;
    }
    if (value === kMaxLongLong) return new Fail('ERR increment or decrement would overflow');
    value += 1n;
    const text = value.toString();
    // INCR keeps the key's TTL (dbOverwrite), and creates it without one.
    if (entry?.type === 'string') entry.value = text;
    else ctx.db.put(key, { type: 'string', value: text, expireAt: NEVER });
    ctx.signal(key);
    return Number(value);
  },
};

