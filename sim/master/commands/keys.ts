import { allKeys, firstKey, type Command } from '../command.js';
import { NEVER } from '../keyspace.js';
import { kMaxLongLong, parseInteger } from '../numbers.js';
import { Fail, NOT_INTEGER, Status, notSimulated, type Value } from '../reply.js';

const kTypes = new Map(['none', 'string', 'zset', 'hash', 'list', 'set'].map((type) => [type, new Status(type)]));

export const DEL: Command = {
  name: 'del', arity: -2, readonly: false, noscript: false,
  run(ctx, args): Value {
    let count = 0;
    for (let i = 1; i < args.length; i++) {
      const key = args[i]!;
      if (ctx.db.lookup(key, ctx.nowMs) === undefined) continue;
      ctx.db.delete(key);
      ctx.signal(key);
      count++;
    }
    return count;
  },
};

/** Counts a key as often as it is named, as Redis does. */
export const EXISTS: Command = {
  name: 'exists', arity: -2, readonly: true, noscript: false, keys: allKeys,
  run(ctx, args): Value {
    let count = 0;
    for (let i = 1; i < args.length; i++) if (ctx.db.lookup(args[i]!, ctx.nowMs) !== undefined) count++;
    return count;
  },
};

export const TYPE: Command = {
  name: 'type', arity: 2, readonly: true, noscript: false, keys: firstKey,
  run(ctx, args): Value {
    return kTypes.get(ctx.db.lookup(args[1]!, ctx.nowMs)?.type ?? 'none')!;
  },
};

export const PTTL: Command = {
  name: 'pttl', arity: 2, readonly: true, noscript: false, keys: firstKey,
  run(ctx, args): Value {
    const entry = ctx.db.lookup(args[1]!, ctx.nowMs);
    if (entry === undefined) return -2;
    return entry.expireAt === NEVER ? -1 : entry.expireAt - ctx.nowMs;
  },
};

/** `PEXPIRE key ms`: a time at or before now deletes the key (and still answers 1). */
export const PEXPIRE: Command = {
  name: 'pexpire', arity: -3, readonly: false, noscript: false,
  run(ctx, args): Value {
    if (args.length > 3) return notSimulated(`PEXPIRE option '${args[3]!.toUpperCase()}'`);
    const ms = parseInteger(args[2]!);
    if (ms === undefined) return NOT_INTEGER;
    if (ms > 2 ** 53 && BigInt(args[2]!) > kMaxLongLong - BigInt(ctx.nowMs)) return new Fail('ERR invalid expire time in \'pexpire\' command');
    const key = args[1]!;
    const entry = ctx.db.lookup(key, ctx.nowMs);
    if (entry === undefined) return 0;
    const when = ctx.nowMs + ms;
    if (when <= ctx.nowMs) ctx.db.delete(key);
    else entry.expireAt = when;
    ctx.signal(key);
    return 1;
  },
};

/** The master's clock: seconds and microseconds, as strings. */
export const TIME: Command = {
  name: 'time', arity: 1, readonly: false, noscript: false,
  run(ctx): Value {
    return [String(Math.floor(ctx.nowUs / 1e6)), String(ctx.nowUs % 1e6)];
  },
};
