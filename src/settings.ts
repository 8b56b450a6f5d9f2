import type { RedisClientOptions } from '@redis/client';
import { kMaxTimerMs } from './util/alarm.js';
import { InvalidArgumentError } from './errors.js';
import { isObject } from './util/checks.js';

/**
 * Settings of a Redlock instance, each optional (the defaults fill the rest): node-redlock v5's five
 * come first, with its defaults, so a v5 `Settings` literal is one of these.
 */
export interface Settings {
  /** Clock drift allowed between masters, as a fraction of the duration: drift = duration × driftFactor + 2 ms. @default 0.01 */
  readonly driftFactor?: number;
  /** Retries after the first attempt; -1 retries until the signal aborts. @default 10 */
  readonly retryCount?: number;
  /** Base wait between attempts, in ms. @default 200 */
  readonly retryDelay?: number;
  /** Random ± added to each wait, in ms: a retry waits retryDelay ± retryJitter. @default 100 */
  readonly retryJitter?: number;
  /**
   * Auto-extended locks (`using()`, autoExtend) are renewed when less than max(duration / 3, this)
   * of validity remains, and never earlier than halfway, in ms. @default 500
   */
  readonly automaticExtensionThreshold?: number;
  /**
   * Per-attempt time budget for the masters' answers, in ms: a stalled master costs at most this
   * (a disconnected one fails at once). Larger than the 5–50 ms the Redlock page suggests for a 10 s TTL
   * (redis.io/docs/latest/develop/use/patterns/distributed-locks) because it only matters when
   * a majority stalls, while a budget below a GC pause or a burst's queueing turns healthy masters
   * into spurious failures. Each master's budget counts from when the call was written to it, or
   * from its reply to the call before, if later: one answering a backlog in order is not timed out
   * (docs/decisions/0008-master-budgets.md). @default 250
   */
  readonly nodeTimeout?: number;
  /**
   * How many times one lock may be extended. The Redlock page bounds reacquisition so that a client
   * that keeps extending cannot hold a resource forever
   * (liveness; redis.io/docs/latest/develop/use/patterns/distributed-locks). @default Infinity
   */
  readonly maxExtensions?: number;
  /** Auto-extended locks are not renewed past this much time after acquisition, in ms. @default Infinity */
  readonly maxHoldTime?: number;
  /** The renewal scheduler renews together every lock due within this many ms. @default 25 */
  readonly renewalWindow?: number;
  /** Most keys in one coalesced script call, so one call never holds a master for long. @default 256 */
  readonly chunkSize?: number;
  /**
   * acquire() as a whole — waiting for its turn in the client's queue, its attempts and retries —
   * must be done within this many ms: an attempt whose turn would come later is not sent and the
   * call fails with OverloadedError, and no retry starts past it. @default Infinity
   */
  readonly acquireTimeout?: number;
  /** Coalesce the operations of one tick into one script call per master; `false` sends one call per operation. @default true */
  readonly coalesce?: boolean;
  /**
   * A refused acquisition sleeps until its keys are released or expire (announced by the masters
   * on a watch connection of pipelock's own per master, a redirect-tracking pair for ioredis and
   * iovalkey) instead of only until its next retry; local callers for the same resources queue
   * behind one network waiter. `false`: node-redlock's polling only. @default true
   */
  readonly wakeups?: boolean;
  /**
   * An auto-extended lock (autoExtend, `using()`) watches its keys on every master's watch
   * connection and aborts its signal with LockLostError within about a round trip of losing them
   * on a quorum (deleted, overwritten, expired), instead of at its next renewal. Opt-in: each
   * renewal rearms the watch with one GET per key per master (docs/auto-extension.md).
   * @default false
   */
  readonly watchHeld?: boolean;
  /**
   * The commands of owner-checked operations. 'auto': the native compare-and-set and compare-and-delete (`SET … IFEQ`,
   * `DELIFEQ`, `DELEX`) for single-key extends and releases, `MSETEX … NX` for a lone acquisition of several resources,
   * on members that have them (Valkey 8.1+/9.0+/9.1+, Redis 8.4+; probed at every connect), and a tick's acquisitions
   * as one `SET NX PX` (or `MSETEX`) each where the connection is pipelock's lean one (on Redis 7 too);
   * Lua scripts elsewhere and for what only a script can do. 'native': a tick's acquisitions natively everywhere. 'scripts': scripts only
   * (a lone single-key acquisition is a `SET NX PX` in every mode), as on servers without the commands. A member
   * that runs no scripts for this user gets native single-key commands whatever this says.
   * See docs/deployments.md, "Valkey, Redis 8 and the script-free path". @default 'auto'
   */
  readonly commands?: 'auto' | 'native' | 'scripts';
  /**
   * Where auto-extended locks are renewed. 'main': on this thread's event loop, which a synchronous
   * stretch longer than a lock's remaining validity makes lose every lock. 'worker': on a worker
   * thread with its own connections to the masters (every member must be a URL, and clientOptions
   * cloneable), so a blocked loop loses nothing until heartbeatBound. See docs/auto-extension.md,
   * "When your event loop blocks". @default 'main'
   */
  readonly renewal?: 'main' | 'worker';
  /**
   * With renewal 'worker': the worker renews a lock only while this thread's event loop turned
   * within this many ms, so a hung process lets its locks go (they expire one duration later) and
   * a lock's signal then aborts with EventLoopBlockedError. Longer than the stalls worth surviving
   * (GC pauses, a large parse: seconds), short enough that a hung holder frees its resources soon.
   * @default 10000
   */
  readonly heartbeatBound?: number;
  /**
   * A setting name pipelock does not know throws InvalidArgumentError instead of warning once
   * (`process.emitWarning`, code PIPELOCK_UNKNOWN_SETTING) and being ignored, as node-redlock ignored
   * it: on for code written for pipelock, off so that a node-redlock program runs unchanged. @default false
   */
  readonly strict?: boolean;
  /**
   * The connection pipelock sends lock commands on. 'auto': pipelock's own lean connection (each
   * flush one socket write, replies parsed in bulk, no promise per command) for masters given as
   * URLs, the clients you give as they are. 'lean': the lean connection for every standalone client
   * you give too, opened from its options (one more connection per master; your client stays
   * yours). 'client': node-redis's client for URLs, the clients you give as they are. Cluster
   * members always use their cluster client. See docs/settings.md, "What each connection costs". @default 'auto'
   */
  readonly connection?: 'auto' | 'lean' | 'client';
}

/** Every setting with its value: what `redlock.settings` holds. */
export type ResolvedSettings = Readonly<Required<Settings>>;

/** The defaults of every setting (exported as `defaultSettings`; docs/settings.md lists them). */
export const kDefaults: ResolvedSettings = Object.freeze({
  driftFactor: 0.01,
  retryCount: 10,
  retryDelay: 200,
  retryJitter: 100,
  automaticExtensionThreshold: 500,
  nodeTimeout: 250,
  maxExtensions: Infinity,
  maxHoldTime: Infinity,
  renewalWindow: 25,
  chunkSize: 256,
  acquireTimeout: Infinity,
  coalesce: true,
  wakeups: true,
  watchHeld: false,
  commands: 'auto',
  renewal: 'main',
  heartbeatBound: 10_000,
  strict: false,
  connection: 'auto',
});

type Check = (name: string, value: unknown) => void;

const finiteAtLeast0: Check = (name, value) => {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
    throw new InvalidArgumentError(name, 'must be a finite number ≥ 0', value);
};

// Waited on with setTimeout, which cuts a longer delay to 1 ms: a huge value must not become a tiny one.
const timerMs: Check = (name, value) => {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > kMaxTimerMs)
    throw new InvalidArgumentError(name, `must be a number of ms from 0 to ${kMaxTimerMs} (the longest timer)`, value);
};

/** Each setting's rule, checked by mergeSettings; docs/settings.md states them (scripts/docs/settings.ts). */
export const RULES: { readonly [K in keyof ResolvedSettings]: Check } = {
  driftFactor: (name, value) => {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value >= 1)
      throw new InvalidArgumentError(name, 'must be a number from 0 up to (not including) 1', value);
  },
  retryCount: (name, value) => {
    if (!Number.isSafeInteger(value) || (value as number) < -1)
      throw new InvalidArgumentError(name, 'must be an integer ≥ -1 (-1: retry until aborted)', value);
  },
  retryDelay: timerMs,
  retryJitter: timerMs,
  automaticExtensionThreshold: finiteAtLeast0,
  nodeTimeout: (name, value) => {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 1 || value > kMaxTimerMs)
      throw new InvalidArgumentError(name, `must be a number of ms from 1 to ${kMaxTimerMs} (the longest timer)`, value);
  },
  maxExtensions: (name, value) => {
    if (value !== Infinity && (!Number.isSafeInteger(value) || (value as number) < 0))
      throw new InvalidArgumentError(name, 'must be an integer ≥ 0 or Infinity', value);
  },
  acquireTimeout: (name, value) => {
    if (typeof value !== 'number' || Number.isNaN(value) || value <= 0)
      throw new InvalidArgumentError(name, 'must be a number of ms > 0, or Infinity', value);
  },
  maxHoldTime: (name, value) => {
    if (typeof value !== 'number' || Number.isNaN(value) || value <= 0)
      throw new InvalidArgumentError(name, 'must be a number of ms > 0, or Infinity', value);
  },
  renewalWindow: finiteAtLeast0,
  chunkSize: (name, value) => {
    if (!Number.isSafeInteger(value) || (value as number) < 1 || (value as number) > 100_000)
      throw new InvalidArgumentError(name, 'must be an integer from 1 to 100000', value);
  },
  coalesce: (name, value) => {
    if (typeof value !== 'boolean') throw new InvalidArgumentError(name, 'must be a boolean', value);
  },
  wakeups: (name, value) => {
    if (typeof value !== 'boolean') throw new InvalidArgumentError(name, 'must be a boolean', value);
  },
  watchHeld: (name, value) => {
    if (typeof value !== 'boolean') throw new InvalidArgumentError(name, 'must be a boolean', value);
  },
  commands: (name, value) => {
    if (value !== 'auto' && value !== 'native' && value !== 'scripts')
      throw new InvalidArgumentError(name, "must be 'auto', 'native' or 'scripts'", value);
  },
  renewal: (name, value) => {
    if (value !== 'main' && value !== 'worker') throw new InvalidArgumentError(name, "must be 'main' or 'worker'", value);
  },
  heartbeatBound: (name, value) => {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 1 || value > kMaxTimerMs)
      throw new InvalidArgumentError(name, `must be a number of ms from 1 to ${kMaxTimerMs}`, value);
  },
  strict: (name, value) => {
    if (typeof value !== 'boolean') throw new InvalidArgumentError(name, 'must be a boolean', value);
  },
  connection: (name, value) => {
    if (value !== 'auto' && value !== 'lean' && value !== 'client')
      throw new InvalidArgumentError(name, "must be 'auto', 'lean' or 'client'", value);
  },
};

/** Names pipelock takes elsewhere (clientOptions, a call's extras): in the wrong place a mistake, not another library's setting. */
const kOtherNames: ReadonlySet<string> = new Set(['clientOptions', 'signal', 'autoExtend', 'onLockLost', 'fencing']);
const warned = new Set<string>();

/** Another library's setting (node-redlock ignored what it did not know): said once per name and process, then ignored. */
function warnUnknown(name: string): void {
  if (warned.has(name)) return;
  warned.add(name);
  process.emitWarning(`${name} is not a pipelock setting and is ignored (docs/settings.md; strict: true makes this an error)`,
    { code: 'PIPELOCK_UNKNOWN_SETTING' });
}

/**
 * `given`'s settings over `base`, each checked by its rule and named `prefix.key` in an error;
 * `allowed`: the keys a call may set (others are refused), `skip`: keys checked elsewhere. A name
 * pipelock does not know warns once and is ignored, or throws when the settings are strict.
 */
export function mergeSettings(base: ResolvedSettings, given: Record<string, unknown>, prefix: string, allowed?: ReadonlySet<string>,
  skip?: ReadonlySet<string>): ResolvedSettings {
  const out: Record<string, unknown> = { ...base };
  const strict = given.strict === undefined ? base.strict : given.strict === true;
  for (const key of Object.keys(given)) {
    const value = given[key];
    if (value === undefined || skip?.has(key) === true) continue;
    const rule = (RULES as Record<string, Check | undefined>)[key];
    if (rule === undefined && !strict && !kOtherNames.has(key)) {
      warnUnknown(`${prefix}.${key}`);
      continue;
    }
    if (rule === undefined || (allowed !== undefined && !allowed.has(key))) {
      throw new InvalidArgumentError(`${prefix}.${key}`,
        rule === undefined ? 'is not a known setting' : 'is not a per-call setting', value);
    }
    rule(`${prefix}.${key}`, value);
    out[key] = value;
  }
  return Object.freeze(out) as unknown as ResolvedSettings;
}

/** Resolves the constructor's settings once; the hot path never re-checks them. */
export function resolveSettings(settings: unknown): ResolvedSettings {
  if (settings === undefined) return kDefaults;
  if (!isObject(settings)) throw new InvalidArgumentError('settings', 'must be an object', settings);
  return mergeSettings(kDefaults, settings, 'settings');
}

/**
 * The Redlock constructor's arguments after the members, checked in this order: node-redlock v5's
 * third argument (replacement scripts) refused, since a changed script would no longer exclude the
 * unchanged ones; the settings resolved; `clientOptions` for the connections pipelock opens.
 */
export function resolveRedlockOptions(options: unknown,
  scripts: readonly unknown[]): { settings: ResolvedSettings; clientOptions?: RedisClientOptions } {
  const why = 'is not supported: pipelock\'s scripts are fixed (docs/migrating-from-node-redlock.md#typescript)';
  if (scripts.length > 0) throw new InvalidArgumentError('scripts', why, scripts[0]);
  // JavaScript callers are not held to the types: a non-object would otherwise be spread away.
  if (options !== undefined && !isObject(options)) throw new InvalidArgumentError('settings', 'must be an object', options);
  const { clientOptions, ...settings } = options ?? {};
  const resolved = resolveSettings(options === undefined ? undefined : settings);
  if (clientOptions === undefined) return { settings: resolved };
  if (!isObject(clientOptions))
    throw new InvalidArgumentError('settings.clientOptions', 'must be an object of @redis/client options', clientOptions);
  return { settings: resolved, clientOptions };
}

export function validateResources(resources: unknown): asserts resources is readonly string[] {
  if (!Array.isArray(resources)) throw new InvalidArgumentError('resources', 'must be an array of strings', resources);
  if (resources.length === 0) throw new InvalidArgumentError('resources', 'must not be empty', resources);
  for (let i = 0; i < resources.length; i++) {
    const resource: unknown = resources[i];
    if (typeof resource !== 'string' || resource.length === 0)
      throw new InvalidArgumentError(`resources[${i}]`, 'must be a non-empty string', resource);
  }
  // Most locks name one resource: skip the Set unless there is something to compare.
  if (resources.length > 1 && new Set(resources).size !== resources.length) {
    const first = resources.findIndex((r, i) => resources.indexOf(r) !== i);
    throw new InvalidArgumentError(`resources[${first}]`,
      `must not repeat resources[${resources.indexOf(resources[first])}]`, resources[first]);
  }
}

/** Redis takes PX as a 64-bit integer, but validity math on a double needs a safe integer. */
export function validateDuration(duration: unknown, name = 'duration'): asserts duration is number {
  if (!Number.isSafeInteger(duration) || (duration as number) <= 0)
    throw new InvalidArgumentError(name, 'must be a positive safe integer of milliseconds', duration);
}
