/**
 * Exact comparison of the two sides' replies, pushes and keyspaces — except where a value comes
 * from the master's clock (a fencing counter started from TIME, a reader's expiry, a queue's
 * arrival): the simulated master runs at the TIME read just before the command inside the same
 * EXEC, the real script a little later, within the EXEC's span (see Tolerance).
 */
import type { KeyDump } from '../master/index.js';

/** A reply as both sides are compared: errors by their text. */
export type Normal = string | number | null | { readonly error: string } | readonly Normal[];

export function normalize(value: unknown): Normal {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number') return value;
  if (value instanceof Error) return { error: value.message };
  if (Array.isArray(value)) return value.map(normalize);
  if (Buffer.isBuffer(value)) return value.toString();
  throw new Error(`unexpected reply ${JSON.stringify(value)}`);
}

/** Values this large are times: ms since the epoch from 1e11, µs from 1e14. */
const kMsClock = 1e11;
const kUsClock = 1e14;

/**
 * How far apart the two sides may put a time. The simulated master runs at the TIME read first
 * in the EXEC; the real command read its clock somewhere before the TIME read last: so a time
 * differs by at most the longest such span of the sequence (µs), and a time floored to ms by one
 * more ms. `ttl`: the reply is a PTTL (ms left: the difference of two such times).
 */
export interface Tolerance {
  readonly spanUs: number;
  readonly ttl?: boolean;
}

/** The largest clock differences seen within tolerance (µs and ms), and the longest EXEC (µs): reported by the test. */
export const clockSpread = { us: 0, ms: 0, spanUs: 0 };

function limits(tolerance: Tolerance): { us: number; ms: number } {
  const ms = 1 + Math.floor(tolerance.spanUs / 1000);
  return { us: tolerance.spanUs, ms: tolerance.ttl === true ? 2 * ms : ms };
}

function clockClose(a: number, b: number, tolerance: Tolerance): boolean {
  const magnitude = Math.max(Math.abs(a), Math.abs(b));
  if (magnitude < kMsClock) return false;
  const spread = Math.abs(a - b);
  const micro = magnitude >= kUsClock;
  const limit = limits(tolerance);
  if (spread > (micro ? limit.us : limit.ms)) return false;
  if (micro) clockSpread.us = Math.max(clockSpread.us, spread);
  else clockSpread.ms = Math.max(clockSpread.ms, spread);
  return true;
}

function sameNumber(a: number, b: number, tolerance: Tolerance): boolean {
  return a === b || (Number.isNaN(a) && Number.isNaN(b)) || clockClose(a, b, tolerance);
}

function integer(text: string): number | undefined {
  return /^-?[0-9]{12,17}$/.test(text) ? Number(text) : undefined;
}

/** Where `sim` and `real` differ, or undefined. */
export function difference(sim: Normal, real: Normal, path: string, tolerance: Tolerance): string | undefined {
  const show = (): string => `${path}: simulated ${JSON.stringify(sim)}, real ${JSON.stringify(real)}`;
  if (typeof sim === 'number' && typeof real === 'number') {
    if (sameNumber(sim, real, tolerance)) return undefined;
    if (tolerance.ttl === true && sim >= 0 && real >= 0 && Math.abs(sim - real) <= limits(tolerance).ms) {
      clockSpread.ms = Math.max(clockSpread.ms, Math.abs(sim - real));
      return undefined;
    }
    return show();
  }
  if (typeof sim === 'string' && typeof real === 'string') {
    if (sim === real) return undefined;
    const a = integer(sim);
    const b = integer(real);
    return a !== undefined && b !== undefined && clockClose(a, b, tolerance) ? undefined : show();
  }
  if (Array.isArray(sim) && Array.isArray(real)) {
    if (sim.length !== real.length) return show();
    for (let i = 0; i < sim.length; i++) {
      const inner = difference(sim[i] as Normal, real[i] as Normal, `${path}[${i}]`, tolerance);
      if (inner !== undefined) return inner;
    }
    return undefined;
  }
  if (sim !== null && real !== null && typeof sim === 'object' && typeof real === 'object' && 'error' in sim && 'error' in real) {
    return sim.error === real.error ? undefined : show();
  }
  return sim === real ? undefined : show();
}

/** Where the keyspaces differ: the same keys and types, values, and expiry within the tolerance. */
export function keyspaceDifference(sim: readonly KeyDump[], real: readonly KeyDump[], tolerance: Tolerance): string | undefined {
  const simKeys = sim.map((entry) => entry.key).join(' ');
  const realKeys = real.map((entry) => entry.key).join(' ');
  if (simKeys !== realKeys) return `keys: simulated [${simKeys}], real [${realKeys}]`;
  for (let i = 0; i < sim.length; i++) {
    const a = sim[i]!;
    const b = real[i]!;
    const path = `key ${JSON.stringify(a.key)}`;
    if (a.type !== b.type) return `${path}: type simulated ${a.type}, real ${b.type}`;
    if ((a.expireAt === null) !== (b.expireAt === null) || (a.expireAt !== null && !sameNumber(a.expireAt, b.expireAt!, tolerance))) {
      return `${path}: expires simulated ${String(a.expireAt)}, real ${String(b.expireAt)}`;
    }
    const inner = a.type === 'zset' ? zsetDifference(a.value, b.value as typeof a.value, path, tolerance) : difference(a.value, b.value, path, tolerance);
    if (inner !== undefined) return inner;
  }
  return undefined;
}

/** Members exactly, scores within the clock's tolerance (so their order is not compared where scores nearly tie). */
function zsetDifference(sim: readonly (readonly [string, number])[], real: readonly (readonly [string, number])[], path: string, tolerance: Tolerance): string | undefined {
  const scores = new Map(real);
  const show = (): string => `${path}: simulated ${JSON.stringify(sim)}, real ${JSON.stringify(real)}`;
  if (sim.length !== real.length) return show();
  for (const [member, score] of sim) {
    const other = scores.get(member);
    if (other === undefined || !sameNumber(score, other, tolerance)) return show();
  }
  return undefined;
}
