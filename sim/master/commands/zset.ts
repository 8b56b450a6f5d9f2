import { firstKey, type Command, type Context } from '../command.js';
import { NEVER, type Entry, type ZSetEntry } from '../keyspace.js';
import { formatG, parseInteger, parseScore, parseScoreBound } from '../numbers.js';
import { Fail, NOT_FLOAT, NOT_INTEGER, SYNTAX, WRONGTYPE, notSimulated, type Value } from '../reply.js';

/** Members by score, then by member (Redis orders ties by the members' bytes). */
export function ordered(entry: ZSetEntry): [string, number][] {
  return [...entry.scores].sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/** A score as Redis replies it: a %.17g string in RESP2 (and so to scripts), a double in RESP3. */
function score(ctx: Context, value: number): Value {
  return ctx.resp === 3 ? value : formatG(value, 17);
}

function zset(entry: Entry | undefined): ZSetEntry | Fail | undefined {
  if (entry === undefined) return undefined;
  return entry.type === 'zset' ? entry : WRONGTYPE;
}

/** `ZADD key [NX|XX] score member …`: how many members were added. */
export const ZADD: Command = {
  name: 'zadd', arity: -4, readonly: false, noscript: false,
  run(ctx, args): Value {
    let nx = false;
    let xx = false;
    let at = 2;
    for (; at < args.length; at++) {
      const option = args[at]!.toLowerCase();
      if (option === 'nx') nx = true;
      else if (option === 'xx') xx = true;
      else if (option === 'ch' || option === 'incr' || option === 'gt' || option === 'lt') return notSimulated(`ZADD option '${option.toUpperCase()}'`);
      else break;
    }
    const elements = args.length - at;
    if (elements === 0 || elements % 2 !== 0) return SYNTAX;
    if (nx && xx) return new Fail('ERR XX and NX options at the same time are not compatible');
    // Every score is parsed before anything is added: the command runs whole or not at all.
    const scores: number[] = [];
    for (let j = at; j < args.length; j += 2) {
      const value = parseScore(args[j]!);
      if (value === undefined) return NOT_FLOAT;
      scores.push(value);
    }
    const key = args[1]!;
    const found = zset(ctx.db.lookup(key, ctx.nowMs));
    if (found instanceof Fail) return found;
    let entry = found;
    if (entry === undefined) {
      if (xx) return 0;
      entry = { type: 'zset', scores: new Map(), expireAt: NEVER };
      ctx.db.put(key, entry);
    }
    let added = 0;
    let updated = 0;
    for (let i = 0; i < scores.length; i++) {
      const member = args[at + 2 * i + 1]!;
      const previous = entry.scores.get(member);
      if (previous === undefined) {
        if (xx) continue;
        entry.scores.set(member, scores[i]!);
        added++;
      } else if (!nx && previous !== scores[i]) {
        entry.scores.set(member, scores[i]!);
        updated++;
      }
    }
    if (added + updated > 0) ctx.signal(key);
    return added;
  },
};

/** `ZRANGE key start stop [WITHSCORES]`, by index. */
export const ZRANGE: Command = {
  name: 'zrange', arity: -4, readonly: true, noscript: false, keys: firstKey,
  run(ctx, args): Value {
    let withScores = false;
    for (let j = 4; j < args.length; j++) {
      const option = args[j]!.toLowerCase();
      if (option === 'withscores') withScores = true;
      else if (option === 'byscore' || option === 'bylex' || option === 'rev' || option === 'limit') return notSimulated(`ZRANGE option '${option.toUpperCase()}'`);
      else return SYNTAX;
    }
    let start = parseInteger(args[2]!);
    let stop = parseInteger(args[3]!);
    if (start === undefined || stop === undefined) return NOT_INTEGER;
    const entry = zset(ctx.db.lookup(args[1]!, ctx.nowMs));
    if (entry === undefined) return [];
    if (entry instanceof Fail) return entry;
    const size = entry.scores.size;
    if (start < 0) start += size;
    if (stop < 0) stop += size;
    if (start < 0) start = 0;
    if (start > stop || start >= size) return [];
    if (stop >= size) stop = size - 1;
    const out: Value[] = [];
    for (const [member, value] of ordered(entry).slice(start, stop + 1)) {
      if (!withScores) out.push(member);
      else if (ctx.resp === 3) out.push([member, value]);
      else out.push(member, score(ctx, value));
    }
    return out;
  },
};

export const ZSCORE: Command = {
  name: 'zscore', arity: 3, readonly: true, noscript: false, keys: firstKey,
  run(ctx, args): Value {
    const entry = zset(ctx.db.lookup(args[1]!, ctx.nowMs));
    if (entry === undefined) return null;
    if (entry instanceof Fail) return entry;
    const value = entry.scores.get(args[2]!);
    return value === undefined ? null : score(ctx, value);
  },
};

/** Deletes the key with its last member. */
function removed(ctx: Context, key: string, entry: ZSetEntry, count: number): number {
  if (count === 0) return 0;
  if (entry.scores.size === 0) ctx.db.delete(key);
  ctx.signal(key);
  return count;
}

export const ZREM: Command = {
  name: 'zrem', arity: -3, readonly: false, noscript: false,
  run(ctx, args): Value {
    const key = args[1]!;
    const entry = zset(ctx.db.lookup(key, ctx.nowMs));
    if (entry === undefined) return 0;
    if (entry instanceof Fail) return entry;
    let count = 0;
    for (let i = 2; i < args.length; i++) if (entry.scores.delete(args[i]!)) count++;
    return removed(ctx, key, entry, count);
  },
};

/** `ZREMRANGEBYSCORE key min max`, bounds as Redis reads them ('(' exclusive, inf, -inf). */
export const ZREMRANGEBYSCORE: Command = {
  name: 'zremrangebyscore', arity: 4, readonly: false, noscript: false,
  run(ctx, args): Value {
    const min = parseScoreBound(args[2]!);
    const max = parseScoreBound(args[3]!);
    if (min === undefined || max === undefined) return new Fail('ERR min or max is not a float');
    const key = args[1]!;
    const entry = zset(ctx.db.lookup(key, ctx.nowMs));
    if (entry === undefined) return 0;
    if (entry instanceof Fail) return entry;
    let count = 0;
    for (const [member, value] of entry.scores) {
      const aboveMin = min.exclusive ? value > min.value : value >= min.value;
      const belowMax = max.exclusive ? value < max.value : value <= max.value;
      if (aboveMin && belowMax) {
        entry.scores.delete(member);
        count++;
      }
    }
    return removed(ctx, key, entry, count);
  },
};
