/**
 * The keys, tokens and turn ids of one generated sequence: small pools, so that operations
 * collide, shaped as pipelock shapes them (counterKeys, permitKey, a read/write lock's three keys).
 */
import { counterKeys } from '../../src/engine/fencing.js';
import { permitKey } from '../../src/kinds/semaphore.js';
import { turnsKey } from '../../src/waiting/gate.js';
import { kNoPrefix } from '../../src/engine/keys.js';
import type { Random } from './random.js';

export interface SequenceOptions {
  /** 'main': long TTLs, nothing expires; 'expiry': TTLs of tens of ms and sleeps, so keys expire between steps. */
  readonly mode: 'main' | 'expiry';
  readonly steps: number;
  /** About now on the server's clock, µs: fencing targets are chosen far from the counters made from it. */
  readonly baseUs: number;
}

const kBase64url = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.split('');
const kHex = '0123456789abcdef'.split('');
/** What other clients may leave in a key pipelock reads as a number. */
export const kGarbage = ['abc', 'inf', '-inf', 'nan', '1.5', '2.7', '-2.5', ' 7', '0x10', '1e3', '007', '-3', '9223372036854775807', '', '12'];
export const kFar = 1e12;

/** What an acquisition took, for the operations that follow it in pipelock (extend, release, hand over…). */
export type Held =
  | { readonly kind: 'lock'; readonly keys: readonly string[]; readonly token: string }
  | { readonly kind: 'permit' | 'reader' | 'writer'; readonly keys: readonly string[]; readonly token: string };

/** The keys and tokens of one sequence. */
export class Pools {
  readonly tokens: string[];
  readonly ids: string[];
  readonly locks = ['r0', 'r1', 'r2'];
  readonly docs = ['d0', 'd1'];
  readonly stores = ['store:0', 'store:1'];
  readonly permits: number;
  readonly slots: string[];
  readonly released = 'sem:permits-released';
  readonly runKey: string;
  readonly attempts: string;
  readonly targets: string[];
  readonly all: string[];
  /** The keys pipelock reads as numbers. */
  readonly counters: string[];
  readonly held: Held[] = [];
  /** SHAs of pipelock's scripts the master has loaded, as far as the sequence so far tells. */
  readonly loaded = new Set<string>();

  constructor(readonly r: Random, readonly options: SequenceOptions) {
    this.tokens = Array.from({ length: 3 }, () => Array.from({ length: 27 }, () => r.pick(kBase64url)).join(''));
    const process = Array.from({ length: 16 }, () => r.pick(kHex)).join('');
    this.ids = [1, 2, 3].map((n) => `${process}:${n.toString(36)}`);
    this.permits = r.between(2, 3);
    this.slots = Array.from({ length: this.permits }, (_, i) => permitKey('sem', i));
    const windowEnd = Math.floor(options.baseUs / 1000 / 60_000) * 60_000;
    this.runKey = `job:run:${windowEnd}`;
    this.attempts = `job:attempts:${windowEnd}`;
    this.targets = ['1', '2', '5', String(options.baseUs - kFar), String(options.baseUs + kFar)];
    this.counters = [...counterKeys(this.locks), this.released, this.attempts];
    this.all = [
      ...this.locks, ...counterKeys(this.locks), ...this.locks.map((lock) => turnsKey(kNoPrefix, lock, false)),
      ...this.docs.flatMap(rw), ...this.slots, this.released, this.runKey, this.attempts, ...this.stores,
    ];
  }

  ttl(): string {
    return String(this.options.mode === 'main' ? this.r.between(20_000, 60_000) : this.r.pick([15, 25, 40, 60, 90, 150, 30_000]));
  }

  /** Mostly `key`; now and then any key of the pool, which may hold another type. */
  stray(key: string): string {
    return this.r.chance(0.06) ? this.r.pick(this.all) : key;
  }
}

/** A read/write lock's keys (src/kinds/rwlock.ts). */
export function rw(doc: string): string[] {
  return [`${doc}:readers`, `${doc}:writer`, `${doc}:writer-waiting`];
}
