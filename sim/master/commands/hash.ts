import { firstKey, type Command } from '../command.js';
import { NEVER } from '../keyspace.js';
import { WRONGTYPE, arityError, type Value } from '../reply.js';

/** HGET and HSET: fencedWrite's storage (src/fencing.ts). */
export const HGET: Command = {
  name: 'hget', arity: 3, readonly: true, noscript: false, keys: firstKey,
  run(ctx, args): Value {
    const entry = ctx.db.lookup(args[1]!, ctx.nowMs);
    if (entry === undefined) return null;
    if (entry.type !== 'hash') return WRONGTYPE;
    return entry.fields.get(args[2]!) ?? null;
  },
};

/** `HSET key field value [field value …]`: how many fields were new. */
export const HSET: Command = {
  name: 'hset', arity: -4, readonly: false, noscript: false,
  run(ctx, args): Value {
    if (args.length % 2 === 1) return arityError('hset');
    const key = args[1]!;
    let entry = ctx.db.lookup(key, ctx.nowMs);
    if (entry === undefined) {
      entry = { type: 'hash', fields: new Map(), expireAt: NEVER };
      ctx.db.put(key, entry);
    } else if (entry.type !== 'hash') {
      return WRONGTYPE;
    }
    let added = 0;
    for (let i = 2; i < args.length; i += 2) {
      if (!entry.fields.has(args[i]!)) added++;
      entry.fields.set(args[i]!, args[i + 1]!);
    }
    ctx.signal(key);
    return added;
  },
};
