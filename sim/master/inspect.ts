/**
 * The keyspace as a test compares it with a real server's, and keys planted as a scenario needs
 * them: neither touches expiry or tracking the way a command would.
 */
import { ordered } from './commands/zset.js';
import { NEVER, type Entry, type Keyspace } from './keyspace.js';

/** One live key: its type, its value in a canonical order, and when it expires (ms, null: never). */
export type KeyDump =
  | { readonly key: string; readonly type: 'string'; readonly value: string; readonly expireAt: number | null }
  | { readonly key: string; readonly type: 'zset'; readonly value: readonly (readonly [string, number])[]; readonly expireAt: number | null }
  | { readonly key: string; readonly type: 'hash'; readonly value: readonly (readonly [string, string])[]; readonly expireAt: number | null }
  | { readonly key: string; readonly type: 'list' | 'set'; readonly value: readonly string[]; readonly expireAt: number | null };

/** A value to plant: a set's members are kept sorted, a list's items in order. */
export type SeedValue =
  | { readonly type: 'string'; readonly value: string }
  | { readonly type: 'zset'; readonly value: readonly (readonly [string, number])[] }
  | { readonly type: 'hash'; readonly value: readonly (readonly [string, string])[] }
  | { readonly type: 'list' | 'set'; readonly value: readonly string[] };

export function dumpKeyspace(db: Keyspace, nowMs: number): KeyDump[] {
  const out: KeyDump[] = [];
  for (const [key, entry] of db.live(nowMs)) out.push(dumpEntry(key, entry));
  return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

function dumpEntry(key: string, entry: Entry): KeyDump {
  const expireAt = entry.expireAt === NEVER ? null : entry.expireAt;
  switch (entry.type) {
    case 'string':
      return { key, type: 'string', value: entry.value, expireAt };
    case 'zset':
      return { key, type: 'zset', value: ordered(entry), expireAt };
    case 'hash':
      return { key, type: 'hash', value: [...entry.fields].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)), expireAt };
    default:
      return { key, type: entry.type, value: entry.type === 'set' ? [...entry.items].sort() : [...entry.items], expireAt };
  }
}

export function seedEntry(seed: SeedValue, expireAt: number): Entry {
  switch (seed.type) {
    case 'string':
      return { type: 'string', value: seed.value, expireAt };
    case 'zset':
      return { type: 'zset', scores: new Map(seed.value), expireAt };
    case 'hash':
      return { type: 'hash', fields: new Map(seed.value), expireAt };
    default:
      return { type: seed.type, items: seed.type === 'set' ? [...new Set(seed.value)].sort() : [...seed.value], expireAt };
  }
}
