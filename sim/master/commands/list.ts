import { firstKey, type Command, type Context } from '../command.js';
import { NEVER, type OpaqueEntry } from '../keyspace.js';
import { parseInteger } from '../numbers.js';
import { Fail, NOT_INTEGER, OK, WRONGTYPE, notSimulated, type Value } from '../reply.js';

/** The list at `key`, undefined when absent, or WRONGTYPE. */
function list(ctx: Context, key: string): OpaqueEntry | Fail | undefined {
  const entry = ctx.db.lookup(key, ctx.nowMs);
  if (entry === undefined) return undefined;
  return entry.type === 'list' ? entry : WRONGTYPE;
}

/** Redis's index rule: negative from the end, clamped to the list. */
function range(length: number, startArg: string, stopArg: string): [number, number] | Fail {
  let start = parseInteger(startArg);
  let stop = parseInteger(stopArg);
  if (start === undefined || stop === undefined) return NOT_INTEGER;
  if (start < 0) start = Math.max(0, length + start);
  if (stop < 0) stop = length + stop;
  return [start, Math.min(stop, length - 1)];
}

/** Replaces the list's items; an empty list is no key (Redis deletes it). */
function store(ctx: Context, key: string, entry: OpaqueEntry, items: string[]): void {
  if (items.length === 0) ctx.db.delete(key);
  else ctx.db.put(key, { ...entry, items });
  ctx.signal(key);
}

/** `RPUSH key item …`: an election's history (src/protocol/election-ops.ts); the new length. */
export const RPUSH: Command = {
  name: 'rpush', arity: -3, readonly: false, noscript: false,
  run(ctx, args): Value {
    const key = args[1]!;
    const entry = list(ctx, key);
    if (entry instanceof Fail) return entry;
    const items = [...(entry?.items ?? []), ...args.slice(2)];
    store(ctx, key, entry ?? { type: 'list', items: [], expireAt: NEVER }, items);
    return items.length;
  },
};

/** `LTRIM key start stop`: keeps that range. */
export const LTRIM: Command = {
  name: 'ltrim', arity: 4, readonly: false, noscript: false,
  run(ctx, args): Value {
    const key = args[1]!;
    const entry = list(ctx, key);
    if (entry instanceof Fail) return entry;
    if (entry === undefined) return OK;
    const bounds = range(entry.items.length, args[2]!, args[3]!);
    if (bounds instanceof Fail) return bounds;
    const kept = entry.items.slice(bounds[0], bounds[1] + 1);
    if (kept.length !== entry.items.length) store(ctx, key, entry, kept);
    return OK;
  },
};

/** `LRANGE key start stop`. */
export const LRANGE: Command = {
  name: 'lrange', arity: 4, readonly: true, noscript: false, keys: firstKey,
  run(ctx, args): Value {
    const entry = list(ctx, args[1]!);
    if (entry instanceof Fail) return entry;
    if (entry === undefined) return [];
    const bounds = range(entry.items.length, args[2]!, args[3]!);
    if (bounds instanceof Fail) return bounds;
    return entry.items.slice(bounds[0], bounds[1] + 1);
  },
};

/** `LREM key 0 item`: every copy removed (the only count pipelock sends); how many. */
export const LREM: Command = {
  name: 'lrem', arity: 4, readonly: false, noscript: false,
  run(ctx, args): Value {
    const key = args[1]!;
    const count = parseInteger(args[2]!);
    if (count === undefined) return NOT_INTEGER;
    if (count !== 0) return notSimulated('LREM with a count other than 0');
    const entry = list(ctx, key);
    if (entry instanceof Fail) return entry;
    if (entry === undefined) return 0;
    const kept = entry.items.filter((item) => item !== args[3]);
    const removed = entry.items.length - kept.length;
    if (removed > 0) store(ctx, key, entry, kept);
    return removed;
  },
};
