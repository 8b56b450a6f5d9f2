import type { Attempt } from '../engine/attempt.js';
import type { MasterSet } from '../engine/masters.js';
import { MUTEX_OPS, type Lock, type LockOps } from './lock.js';
import type { ResolvedSettings } from '../settings.js';
import type { CallSettings } from './lock.js';
import { OP_ACQUIRE, OP_FENCED_ACQUIRE, type OpCode } from '../protocol/opcodes.js';
import type { HandoverTerms } from '../waiting/ticket.js';
import type { Waiting, WaitMode } from '../waiting/waiters.js';
import { counterKeys, raiseFence } from '../engine/fencing.js';
import { drift } from './validity.js';

/**
 * One acquisition of a lock of some kind, as the acquire loop needs it: only the operation, its keys, what the won
 * lock holds, how it waits and what it does once won differ. Made per call: a semaphore's slot changes per attempt.
 */
export interface Kind extends Waiting {
  /** 'mutex', 'semaphore', 'read lock', 'write lock' (messages). */
  readonly name: string;
  /** The name the caller gave (traces). */
  readonly resource: string;
  /** The batch script's operation and its keys, sent to every master. */
  readonly opcode: OpCode;
  readonly keys: readonly string[];
  /** The next attempt's extra script argument and its expected reply (Attempt.target). */
  readonly extra: string;
  readonly target: number;
  /** The keys the lock holds if the next attempt wins: those it extends, releases, and undoes on a loss. */
  readonly lockKeys: readonly string[];
  /** How the won lock is extended and released. */
  readonly ops: LockOps;
  /** The keys a refused caller sleeps on: their release (or expiry) may let it in. */
  readonly waitKeys: readonly string[];
  /** How a refused caller waits beside the other callers of its process (src/waiting/waiters.ts). */
  readonly waiting: WaitMode;
  /** In turn (`waiting: 'turn'`): how long the first in line keeps a free lock to itself at the gate, ms. */
  readonly graceMs?: number;
  /** Whether a refused call may read what holds its keys (plain strings: src/engine/foreign.ts). */
  readonly foreign: boolean;
  /** An attempt was refused: true to try again at once (a quorum offered something else to take). */
  refused(attempt: Attempt): boolean;
  /** What a lock handed over to a waiting call must be (src/waiting/handover.ts), or undefined: it takes none. */
  terms(duration: number, ttlArg: string, settings: ResolvedSettings): HandoverTerms | undefined;
  /** A won attempt's fencing token raised across the quorum (undefined there: lost), or undefined when the kind has none. */
  fence(masters: MasterSet, attempt: Attempt, budget: number): Promise<number | undefined> | undefined;
}

/** Bad `permits` and friends: a positive safe integer. */
export function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) > 0;
}

/** What the kinds (src/kinds/) acquire through: the acquire loop below them, not the facade above. */
export interface KindHost {
  readonly settings: ResolvedSettings;
  /** The masters, for what a kind reads and writes beside its lock (an election's term and record). */
  readonly masters: MasterSet;
  /** node-redlock's 'error' event, for a failure with no caller to throw to. */
  report(error: unknown): void;
  acquireKind(kind: Kind, duration: number, settings?: CallSettings): Promise<Lock>;
}

/** A kind's answer when it has no handover terms or no fence. */
export const none = (): undefined => undefined;

/**
 * The plain mutex (op A: SET NX PX on each resource): what Redlock.acquire() takes. Its waiters line up and may be
 * handed a released lock (src/waiting/handover.ts).
 */
export class Mutex implements Kind {
  constructor(readonly lockKeys: readonly string[]) {}
  get name(): string { return 'mutex'; }
  get resource(): string { return this.lockKeys[0]!; }
  get opcode(): OpCode { return OP_ACQUIRE; }
  get keys(): readonly string[] { return this.lockKeys; }
  get extra(): string { return ''; }
  get target(): number { return 0; }
  get ops(): LockOps { return MUTEX_OPS; }
  get waitKeys(): readonly string[] { return this.lockKeys; }
  get waiting(): WaitMode { return 'line'; }
  get foreign(): boolean { return true; }
  refused(): boolean { return false; }

  /** Its least validity left (its duration less two drift allowances) is about what an acquisition from the masters leaves it. */
  terms(duration: number, ttlArg: string, s: ResolvedSettings): HandoverTerms | undefined {
    return { ttlArg, budget: s.nodeTimeout, least: duration - 2 * drift(duration, s.driftFactor) };
  }

  fence(_masters: MasterSet, _attempt: Attempt, _budget: number): Promise<number | undefined> | undefined {
    return undefined;
  }
}

/**
 * A fenced mutex (`fencing: true`, op F): attempts also INCR the fencing counters, raised across the quorum once won.
 * Never handed over: a token passed within the process would skip the raise.
 */
export class FencedMutex extends Mutex {
  readonly #keys: readonly string[];

  constructor(resources: readonly string[], readonly counters: readonly string[]) {
    super(resources);
    this.#keys = [...resources, ...counters];
  }

  override get keys(): readonly string[] { return this.#keys; }
  override get opcode(): OpCode { return OP_FENCED_ACQUIRE; }
  override terms(): undefined { return undefined; }

  override fence(masters: MasterSet, attempt: Attempt, budget: number): Promise<number | undefined> {
    return raiseFence(masters, this.counters, attempt.value, budget);
  }
}

/** Redlock.acquire()'s kind: a plain mutex, or a fenced one (its counters in the resources' slots on a cluster member). */
export function mutexOf(resources: readonly string[], fencing: boolean, clustered: boolean): Mutex {
  return fencing ? new FencedMutex(resources, counterKeys(resources, clustered)) : new Mutex(resources);
}
