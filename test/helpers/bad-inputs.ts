/**
 * The bad-input table (issue 8): every public function, every setting and every CLI flag, tried
 * with the invalid values that apply to it. Data, generated from compact per-argument specs; the
 * runner (test/integration/bad-input.test.ts) builds each case's fixture, calls it, and checks the
 * typed error, that no key is left on any master and that no rejection went unhandled.
 */
import { UsageError } from '../../tools/src/cli/errors.js';
import { parseLoadFlags } from '../../tools/src/cli/flags.js';
import { parseReportArgs } from '../../tools/src/cli/report.js';
import {
  ExtensionLimitError, fencedWrite, InvalidArgumentError, LockAbortedError, LockExpiredError, QuorumUnreachableError,
  Redlock, RedlockClosedError, ReleaseResult, runOnce, type CallSettings, type Lock, type RedisClient, type ResolvedSettings,
} from '../../src/index.js';
import { InvalidOptionError, MasterStartError, MasterStateError, RedisServerNotFoundError } from '../../src/testing/errors.js';
import { startMasters, type LocalMasters } from '../../src/testing/masters.js';
import { cli, type Exit } from './cli.js';

export type Fn =
  | 'new Redlock' | 'Redlock.ready' | 'Redlock.acquire' | 'Redlock.release' | 'Redlock.extend' | 'Redlock.using'
  | 'Redlock.quit' | 'Redlock.semaphore' | 'Semaphore.acquire' | 'Semaphore.using' | 'Redlock.readWriteLock' | 'ReadWriteLock.readLock' | 'ReadWriteLock.writeLock'
  | 'Lock.release' | 'Lock.extend' | 'ReleaseResult.complete' | 'runOnce' | 'fencedWrite' | 'Redlock.election' | 'Election.campaign'
  | 'startMasters' | 'LocalMaster.restart' | 'LocalMaster.pause' | 'LocalMaster.flush' | 'LocalMasters.close'
  | 'pipelock' | 'pipelock loadtest' | 'pipelock report';

export type Category =
  | 'wrong type' | 'missing' | 'empty' | 'zero' | 'negative' | 'fraction' | 'NaN' | 'Infinity' | 'huge' | 'too small'
  | 'duplicate' | 'conflict' | 'unknown' | 'not found' | 'foreign lock' | 'stale lock' | 'limit' | 'closed client'
  | 'paused' | 'aborted signal';

/** What a case needs besides the shared Redlock; the runner builds it for that case alone and cleans up after. */
export type Fixture =
  | 'lock' | 'foreign lock' | 'released lock' | 'closed redlock' | 'closed caller clients' | 'closed client'
  | 'spare master' | 'stopped master' | 'paused master' | 'closed masters';

export interface Env {
  /** Open over the suite's three masters, shared by every case. */
  readonly redlock: Redlock;
  readonly urls: readonly string[];
  /** An open @redis/client connection to master 0. */
  readonly client: RedisClient;
  /** 'lock': held by `redlock`, released after the case. */
  readonly lock: Lock;
  /** 'foreign lock': held by another Redlock. */
  readonly foreign: Lock;
  /** 'released lock': acquired and released by `redlock`. */
  readonly released: Lock;
  /** 'closed redlock': quit() after acquiring and releasing `closedLock` (whose release gave `closedResult`). */
  readonly closed: Redlock;
  readonly closedLock: Lock;
  readonly closedResult: ReleaseResult;
  /** 'closed caller clients': a Redlock (retryCount 0) over the caller's clients, closed by the caller since. */
  readonly orphaned: Redlock;
  /** 'closed client': an @redis/client client of master 0, closed. */
  readonly closedClient: RedisClient;
  /** 'spare master' (running), 'stopped master', 'paused master', 'closed masters': one master of its own. */
  readonly spare: LocalMasters;
}

type ErrorClass = abstract new (...args: never[]) => Error;

export type Expect =
  /** This exact class, its stable code, and the argument / option / flag it names (undefined: the class names none). */
  | { readonly error: ErrorClass; readonly code: string; readonly names: string | undefined }
  /** Not an error, on purpose: what happens instead, in words (checked by `check`). */
  | { readonly resolves: string }
  /** A `pipelock` command line: its exit code and one stderr line. */
  | { readonly exit: number; readonly stderr: RegExp };

export interface BadInputCase {
  readonly fn: Fn;
  readonly category: Category;
  /** The bad input, described. */
  readonly input: string;
  readonly given?: Fixture;
  readonly call: (env: Env) => unknown;
  readonly expect: Expect;
  /** Further assertions on the error or the resolved value. */
  readonly check?: (outcome: unknown) => void;
}

/** Functions that throw (they return no promise); every other call must reject, never throw. */
export const SYNC_FNS: ReadonlySet<Fn> = new Set(['new Redlock', 'Redlock.semaphore', 'Redlock.election', 'Redlock.readWriteLock', 'LocalMaster.pause', 'pipelock loadtest', 'pipelock report']);

/** The argument, option or flag an error names (the property differs by family). */
export function namedBy(error: unknown): string | undefined {
  if (error instanceof InvalidArgumentError) return error.argument;
  if (error instanceof InvalidOptionError) return error.option;
  if (error instanceof UsageError) return error.flag;
  return undefined;
}

const invalid = (names: string): Expect => ({ error: InvalidArgumentError, code: 'ERR_PIPELOCK_INVALID_ARGUMENT', names });
const option = (names: string): Expect => ({ error: InvalidOptionError, code: 'ERR_INVALID_OPTION', names });
const usage = (names: string): Expect => ({ error: UsageError, code: 'ERR_PIPELOCK_USAGE', names });
const closedError: Expect = { error: RedlockClosedError, code: 'ERR_PIPELOCK_CLOSED', names: undefined };
const aborted: Expect = { error: LockAbortedError, code: 'ERR_PIPELOCK_ABORTED', names: undefined };
const expired: Expect = { error: LockExpiredError, code: 'ERR_PIPELOCK_LOCK_EXPIRED', names: undefined };
const unreachable: Expect = { error: QuorumUnreachableError, code: 'ERR_PIPELOCK_QUORUM_UNREACHABLE', names: undefined };
const stateError: Expect = { error: MasterStateError, code: 'ERR_MASTER_STATE', names: undefined };

/** A value as a case's name shows it. */
export function show(value: unknown): string {
  if (typeof value === 'number') return Object.is(value, 2 ** 53) ? '2**53' : Object.is(value, 2 ** 60) ? '2**60' : Object.is(value, 2 ** 31) ? '2**31' : String(value);
  if (value === undefined || value === null || typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'function') return 'a function';
  if (value instanceof Set) return `a Set of ${value.size}`;
  if (value instanceof AbortSignal) return 'an AbortSignal';
  if (Array.isArray(value)) return `[${Array.from(value, (item) => show(item)).join(', ')}]`;
  const entries = Object.entries(value);
  return entries.length === 0 ? '{}' : `{ ${entries.map(([key, item]) => `${key}: ${show(item)}`).join(', ')} }`;
}

type Bad = readonly [Category, unknown];
const routine = (): Promise<void> => Promise.resolve();
const kKey = 'bad-input';

const cases: BadInputCase[] = [];
function add(fn: Fn, category: Category, input: string, call: (env: Env) => unknown, expect: Expect, more: { given?: Fixture; check?: (outcome: unknown) => void } = {}): void {
  cases.push({ fn, category, input, call, expect, ...more });
}

// ─── Settings: every Redlock setting, and the per-call ones on every call that takes them ───

const WRONG_NUMBER: Bad[] = [['wrong type', '100'], ['wrong type', true], ['NaN', NaN]];
const SETTING_BAD: { readonly [K in keyof ResolvedSettings]: readonly Bad[] } = {
  driftFactor: [...WRONG_NUMBER, ['negative', -0.01], ['Infinity', Infinity], ['huge', 1e6]],
  retryCount: [...WRONG_NUMBER, ['negative', -2], ['fraction', 1.5], ['Infinity', Infinity], ['huge', 2 ** 53]],
  retryDelay: [...WRONG_NUMBER, ['negative', -1], ['Infinity', Infinity], ['huge', 2 ** 31]],
  retryJitter: [...WRONG_NUMBER, ['negative', -1], ['Infinity', Infinity], ['huge', 2 ** 31]],
  automaticExtensionThreshold: [...WRONG_NUMBER, ['negative', -1], ['Infinity', Infinity]],
  nodeTimeout: [...WRONG_NUMBER, ['zero', 0], ['negative', -1], ['Infinity', Infinity], ['huge', 2 ** 31]],
  maxExtensions: [...WRONG_NUMBER, ['negative', -1], ['fraction', 1.5], ['Infinity', -Infinity], ['huge', 2 ** 53]],
  maxHoldTime: [...WRONG_NUMBER, ['zero', 0], ['negative', -1], ['Infinity', -Infinity]],
  acquireTimeout: [...WRONG_NUMBER, ['zero', 0], ['negative', -1], ['Infinity', -Infinity]],
  renewalWindow: [...WRONG_NUMBER, ['negative', -1], ['Infinity', Infinity]],
  chunkSize: [...WRONG_NUMBER, ['zero', 0], ['negative', -1], ['fraction', 1.5], ['Infinity', Infinity], ['huge', 100_001]],
  coalesce: [['wrong type', 1], ['wrong type', 'true'], ['wrong type', null]],
  wakeups: [['wrong type', 1], ['wrong type', 'true'], ['wrong type', null]],
  watchHeld: [['wrong type', 1], ['wrong type', 'yes'], ['wrong type', null]],
  commands: [['wrong type', true], ['unknown', 'lua'], ['unknown', 'AUTO'], ['wrong type', null]],
  renewal: [['wrong type', true], ['unknown', 'thread'], ['wrong type', null]],
  heartbeatBound: [...WRONG_NUMBER, ['zero', 0], ['negative', -1], ['Infinity', Infinity], ['huge', 2 ** 31]],
  strict: [['wrong type', 1], ['wrong type', 'yes'], ['wrong type', null]],
  connection: [['unknown', 'fast'], ['wrong type', true], ['empty', ''], ['unknown', 'LEAN']],
};
const INSTANCE_ONLY = ['renewalWindow', 'chunkSize', 'coalesce', 'commands', 'renewal', 'heartbeatBound', 'strict'] as const;

for (const [name, bads] of Object.entries(SETTING_BAD)) {
  for (const [category, value] of bads) {
    add('new Redlock', category, `settings.${name} = ${show(value)}`, (env) => new Redlock(env.urls, { [name]: value }), invalid(`settings.${name}`));
  }
}
for (const value of [null, 42, 'x', []]) add('new Redlock', 'wrong type', `settings = ${show(value)}`, (env) => new Redlock(env.urls, value as never), invalid('settings'));
add('new Redlock', 'unknown', 'scripts (node-redlock v5\'s third argument)', (env) => new Redlock(env.urls, {}, { acquireScript: 'x' } as never), invalid('scripts'));
for (const value of [null, 42, 'tls']) {
  add('new Redlock', 'wrong type', `settings.clientOptions = ${show(value)}`, (env) => new Redlock(env.urls, { clientOptions: value as never }), invalid('settings.clientOptions'));
}
// A name pipelock does not know only warns (node-redlock ignored it) unless strict; one it takes elsewhere always throws.
for (const name of ['bogus', 'retryCont']) {
  add('new Redlock', 'unknown', `settings.${name} (strict)`, (env) => new Redlock(env.urls, { strict: true, [name]: 1 }), invalid(`settings.${name}`));
}
add('new Redlock', 'unknown', 'settings.signal', (env) => new Redlock(env.urls, { signal: 1 } as never), invalid('settings.signal'));

/** The six calls that take per-call settings, each with what it needs. */
const PER_CALL: readonly [Fn, Fixture | undefined, (env: Env, settings: unknown) => unknown][] = [
  ['Redlock.acquire', undefined, (env, s) => env.redlock.acquire([kKey], 1000, s as CallSettings)],
  ['Redlock.using', undefined, (env, s) => env.redlock.using([kKey], 1000, s as CallSettings, routine)],
  ['Redlock.extend', 'lock', (env, s) => env.redlock.extend(env.lock, 1000, s as CallSettings)],
  ['Redlock.release', 'lock', (env, s) => env.redlock.release(env.lock, s as CallSettings)],
  ['Lock.extend', 'lock', (env, s) => env.lock.extend(1000, s as CallSettings)],
  ['Lock.release', 'lock', (env, s) => env.lock.release(s as CallSettings)],
];
const CALL_EXTRAS_BAD: readonly [string, Category, unknown][] = [
  ['signal', 'wrong type', 'stop'], ['signal', 'wrong type', {}], ['signal', 'wrong type', { aborted: true }],
  ['autoExtend', 'wrong type', 'yes'], ['autoExtend', 'wrong type', 1],
  ['fencing', 'wrong type', 'yes'], ['fencing', 'wrong type', 1],
  ['onLockLost', 'wrong type', 'log'], ['onLockLost', 'wrong type', 42],
];
for (const [fn, given, call] of PER_CALL) {
  const more = given === undefined ? {} : { given };
  for (const [name, bads] of Object.entries(SETTING_BAD)) {
    if ((INSTANCE_ONLY as readonly string[]).includes(name)) {
      add(fn, 'unknown', `settings.${name} (instance-wide only)`, (env) => call(env, { [name]: 3 }), invalid(`settings.${name}`), more);
      continue;
    }
    for (const [category, value] of bads) {
      add(fn, category, `settings.${name} = ${show(value)}`, (env) => call(env, { [name]: value }), invalid(`settings.${name}`), more);
    }
  }
  for (const [name, category, value] of CALL_EXTRAS_BAD) {
    add(fn, category, `settings.${name} = ${show(value)}`, (env) => call(env, { [name]: value }), invalid(`settings.${name}`), more);
  }
  add(fn, 'unknown', 'settings.clientOptions', (env) => call(env, { clientOptions: {} }), invalid('settings.clientOptions'), more);
  for (const value of [null, 'x', 42, []]) add(fn, 'wrong type', `settings = ${show(value)}`, (env) => call(env, value), invalid('settings'), more);
}

add('Redlock.acquire', 'wrong type', 'settings.retryCount = "many"', (env) => env.redlock.acquire([kKey], 1000, { retryCount: 'many' as never }), invalid('settings.retryCount'));

// ─── Redlock's constructor: clients ───

const CLIENTS_BAD: readonly [Category, string, (env: Env) => unknown, string][] = [
  ['missing', 'undefined', () => undefined, 'clients'],
  ['wrong type', 'null', () => null, 'clients'],
  ['wrong type', 'a URL string, not a list', () => 'redis://127.0.0.1:1', 'clients'],
  ['wrong type', '42', () => 42, 'clients'],
  ['wrong type', '{}', () => ({}), 'clients'],
  ['empty', '[]', () => [], 'clients'],
  ['wrong type', '["http://127.0.0.1:1"]', () => ['http://127.0.0.1:1'], 'clients[0]'],
  ['wrong type', '[url, "not a url"]', (env) => [env.urls[0], 'not a url'], 'clients[1]'],
  ['empty', '[url, ""]', (env) => [env.urls[0], ''], 'clients[1]'],
  ['wrong type', '[url, 42]', (env) => [env.urls[0], 42], 'clients[1]'],
  ['wrong type', '[url, null]', (env) => [env.urls[0], null], 'clients[1]'],
  ['wrong type', '[url, {}] (no sendCommand)', (env) => [env.urls[0], {}], 'clients[1]'],
  ['duplicate', '[url, url]', (env) => [env.urls[0], env.urls[0]], 'clients[1]'],
  ['duplicate', '[url0, url1, url0]', (env) => [env.urls[0], env.urls[1], env.urls[0]], 'clients[2]'],
  ['duplicate', '[client, client]', (env) => [env.client, env.client], 'clients[1]'],
];
for (const [category, input, clients, names] of CLIENTS_BAD) add('new Redlock', category, `clients = ${input}`, (env) => new Redlock(clients(env) as never), invalid(names));
add('new Redlock', 'closed client', 'clients = [a closed client]', (env) => new Redlock([env.closedClient]), invalid('clients[0]'), { given: 'closed client' });

// ─── resources and duration: acquire, using, extend ───

const RESOURCES_BAD: readonly [Category, unknown, string][] = [
  ['missing', undefined, 'resources'], ['wrong type', null, 'resources'], ['wrong type', 'key', 'resources'],
  ['wrong type', 42, 'resources'], ['wrong type', {}, 'resources'], ['wrong type', new Set(['a']), 'resources'],
  ['empty', [], 'resources'], ['empty', [''], 'resources[0]'], ['empty', ['a', ''], 'resources[1]'],
  ['wrong type', ['a', 7], 'resources[1]'], ['wrong type', ['a', null], 'resources[1]'], ['wrong type', [['a']], 'resources[0]'],
  // eslint-disable-next-line no-sparse-arrays -- a hole is one of the bad inputs
  ['missing', [, 'a'], 'resources[0]'],
  ['duplicate', ['a', 'a'], 'resources[1]'], ['duplicate', ['a', 'b', 'a'], 'resources[2]'],
];
const DURATION_BAD: readonly Bad[] = [
  ['missing', undefined], ['wrong type', null], ['wrong type', '1000'], ['wrong type', true], ['zero', 0],
  ['negative', -5], ['negative', -Infinity], ['fraction', 1.5], ['NaN', NaN], ['Infinity', Infinity], ['huge', 2 ** 53], ['huge', 2 ** 60],
];
for (const [category, resources, names] of RESOURCES_BAD) {
  add('Redlock.acquire', category, `resources = ${show(resources)}`, (env) => env.redlock.acquire(resources as never, 1000), invalid(names));
  add('Redlock.using', category, `resources = ${show(resources)}`, (env) => env.redlock.using(resources as never, 1000, routine), invalid(names));
}
for (const [category, duration] of DURATION_BAD) {
  add('Redlock.acquire', category, `duration = ${show(duration)}`, (env) => env.redlock.acquire([kKey], duration as never), invalid('duration'));
  add('Redlock.using', category, `duration = ${show(duration)}`, (env) => env.redlock.using([kKey], duration as never, routine), invalid('duration'));
  add('Redlock.extend', category, `duration = ${show(duration)}`, (env) => env.redlock.extend(env.lock, duration as never), invalid('duration'), { given: 'lock' });
  add('Lock.extend', category, `duration = ${show(duration)}`, (env) => env.lock.extend(duration as never), invalid('duration'), { given: 'lock' });
}
// ─── Lock kinds (src/kinds/) ───

const PERMITS_BAD: readonly [Category, unknown][] = [
  ['missing', undefined], ['wrong type', null], ['wrong type', '8'], ['zero', 0], ['negative', -1], ['fraction', 1.5], ['NaN', NaN], ['Infinity', Infinity], ['huge', 1025],
];
for (const [category, permits] of PERMITS_BAD) add('Redlock.semaphore', category, `permits = ${show(permits)}`, (env) => env.redlock.semaphore(kKey, permits as never), invalid('permits'));
for (const [category, resource] of [['missing', undefined], ['empty', ''], ['wrong type', 42], ['wrong type', [kKey]]] as const) {
  add('Redlock.semaphore', category, `resource = ${show(resource)}`, (env) => env.redlock.semaphore(resource as never, 2), invalid('resource'));
  add('Redlock.readWriteLock', category, `resource = ${show(resource)}`, (env) => env.redlock.readWriteLock(resource as never), invalid('resource'));
}
// Leader election (src/kinds/election/): timing checked at construction, campaign options per call.
for (const [category, name] of [['missing', undefined], ['empty', ''], ['wrong type', 42]] as const) {
  add('Redlock.election', category, `name = ${show(name)}`, (env) => env.redlock.election(name as never), invalid('name'));
}
add('Redlock.election', 'wrong type', 'options = 5', (env) => env.redlock.election('e', 5 as never), invalid('options'));
for (const [category, lease] of [['wrong type', '100'], ['zero', 0], ['negative', -1], ['fraction', 1.5], ['NaN', NaN], ['Infinity', Infinity], ['huge', 2 ** 31]] as const) {
  add('Redlock.election', category, `options.lease = ${show(lease)}`, (env) => env.redlock.election('e', { lease: lease as never }), invalid('options.lease'));
}
add('Redlock.election', 'conflict', 'renewDeadline > lease / 2', (env) => env.redlock.election('e', { lease: 1000, renewDeadline: 600 }), invalid('options.renewDeadline'));
add('Redlock.election', 'conflict', 'renewDeadline ≤ 1.2 × retryPeriod', (env) => env.redlock.election('e', { lease: 1000, renewDeadline: 300, retryPeriod: 250 }), invalid('options.renewDeadline'));
add('Redlock.election', 'conflict', 'retryPeriod too long for the default renewDeadline', (env) => env.redlock.election('e', { lease: 1000, retryPeriod: 300 }), invalid('options.retryPeriod'));
add('Election.campaign', 'wrong type', 'options = 5', (env) => env.redlock.election('e').campaign(5 as never), invalid('options'));
add('Election.campaign', 'wrong type', 'options.value = 3', (env) => env.redlock.election('e').campaign({ value: 3 as never }), invalid('options.value'));
add('Election.campaign', 'wrong type', 'options.signal = "x"', (env) => env.redlock.election('e').campaign({ signal: 'x' as never }), invalid('options.signal'));
add('Election.campaign', 'aborted signal', 'options.signal already aborted', (env) => env.redlock.election('e').campaign({ signal: AbortSignal.abort() }), aborted);
for (const [category, duration] of DURATION_BAD) {
  add('Semaphore.acquire', category, `duration = ${show(duration)}`, (env) => env.redlock.semaphore(kKey, 2).acquire(duration as never), invalid('duration'));
  add('ReadWriteLock.readLock', category, `duration = ${show(duration)}`, (env) => env.redlock.readWriteLock(kKey).readLock(duration as never), invalid('duration'));
  add('ReadWriteLock.writeLock', category, `duration = ${show(duration)}`, (env) => env.redlock.readWriteLock(kKey).writeLock(duration as never), invalid('duration'));
}
add('Semaphore.acquire', 'conflict', 'settings.fencing = true (fencing orders one mutex\'s holders)', (env) => env.redlock.semaphore(kKey, 2).acquire(1000, { fencing: true }), invalid('settings.fencing'));
add('ReadWriteLock.writeLock', 'conflict', 'settings.fencing = true', (env) => env.redlock.readWriteLock(kKey).writeLock(1000, { fencing: true }), invalid('settings.fencing'));
add('Semaphore.acquire', 'wrong type', 'settings.retryCount = "many"', (env) => env.redlock.semaphore(kKey, 2).acquire(1000, { retryCount: 'many' as never }), invalid('settings.retryCount'));
add('Semaphore.using', 'wrong type', 'routine = "go"', (env) => env.redlock.semaphore(kKey, 2).using(1000, 'go' as never), invalid('routine'));
add('Semaphore.using', 'wrong type', 'settings = "fast"', (env) => env.redlock.semaphore(kKey, 2).using(1000, 'fast' as never, routine), invalid('settings'));
add('Semaphore.using', 'too small', 'duration = 550, within 100 ms of automaticExtensionThreshold', (env) => env.redlock.semaphore(kKey, 2).using(550, routine), invalid('duration'));

add('Redlock.acquire', 'too small', 'duration = 1 (less than its drift): never returned, keys undone', (env) => env.redlock.acquire([kKey], 1, { retryCount: 0 }), expired);
add('Redlock.using', 'too small', 'duration = 550, within 100 ms of automaticExtensionThreshold', (env) => env.redlock.using([kKey], 550, routine), invalid('duration'));
add('Redlock.using', 'huge', 'settings.automaticExtensionThreshold = 1e9 ≥ duration − 100', (env) => env.redlock.using([kKey], 1000, { automaticExtensionThreshold: 1e9 }, routine), invalid('duration'));
for (const value of [undefined, null, 'f', {}, 42]) {
  add('Redlock.using', value === undefined ? 'missing' : 'wrong type', `routine = ${show(value)}`, (env) => env.redlock.using([kKey], 1000, value as never), invalid('routine'));
  add('Redlock.using', value === undefined ? 'missing' : 'wrong type', `settings given, routine = ${show(value)}`, (env) => env.redlock.using([kKey], 1000, {}, value as never), invalid('routine'));
}

// ─── the lock argument of release / extend ───

const LOCK_BAD: readonly [Category, string, (env: Env) => unknown][] = [
  ['missing', 'undefined', () => undefined], ['wrong type', 'null', () => null], ['wrong type', '{}', () => ({})],
  ['wrong type', '"lock"', () => 'lock'], ['wrong type', 'a look-alike { resources, value }', () => ({ resources: ['x'], value: 'y' })],
];
for (const [category, input, lock] of LOCK_BAD) {
  add('Redlock.release', category, `lock = ${input}`, (env) => env.redlock.release(lock(env) as never), invalid('lock'));
  add('Redlock.extend', category, `lock = ${input}`, (env) => env.redlock.extend(lock(env) as never, 1000), invalid('lock'));
}
add('Redlock.release', 'foreign lock', 'a Lock of another Redlock', (env) => env.redlock.release(env.foreign), invalid('lock'), { given: 'foreign lock' });
add('Redlock.extend', 'foreign lock', 'a Lock of another Redlock', (env) => env.redlock.extend(env.foreign, 1000), invalid('lock'), { given: 'foreign lock' });
add('Lock.extend', 'negative', 'a foreign Lock\'s own extend(-1)', (env) => env.foreign.extend(-1), invalid('duration'), { given: 'foreign lock' });
add('Redlock.extend', 'stale lock', 'a released Lock', (env) => env.redlock.extend(env.released, 1000), expired, { given: 'released lock' });
add('Lock.extend', 'stale lock', 'a released Lock', (env) => env.released.extend(1000), expired, { given: 'released lock' });
add('Redlock.extend', 'limit', 'settings.maxExtensions = 0 (reached)', (env) => env.redlock.extend(env.lock, 1000, { maxExtensions: 0 }),
  { error: ExtensionLimitError, code: 'ERR_PIPELOCK_EXTENSION_LIMIT', names: undefined }, { given: 'lock' });
add('Lock.extend', 'limit', 'settings.maxExtensions = 0 (reached)', (env) => env.lock.extend(1000, { maxExtensions: 0 }),
  { error: ExtensionLimitError, code: 'ERR_PIPELOCK_EXTENSION_LIMIT', names: undefined }, { given: 'lock' });
const wasExpired = (outcome: unknown): void => {
  if (!(outcome instanceof ReleaseResult) || !outcome.expired) throw new Error('expected a ReleaseResult with expired: true');
};
add('Redlock.release', 'duplicate', 'a Lock released already', (env) => env.redlock.release(env.released),
  { resolves: 'release() of a lock no longer held says { expired: true }' }, { given: 'released lock', check: wasExpired });
add('Lock.release', 'duplicate', 'released twice', (env) => env.released.release(),
  { resolves: 'release() of a lock no longer held says { expired: true }' }, { given: 'released lock', check: wasExpired });

// ─── aborted signals ───

const abortedSignal = (reason?: unknown): AbortSignal => {
  const controller = new AbortController();
  controller.abort(reason);
  return controller.signal;
};
const causeIs = (message: string) => (outcome: unknown): void => {
  const error = outcome as LockAbortedError;
  if (!(error.cause instanceof Error) || error.cause.message !== message) throw new Error(`expected the signal's reason "${message}" as cause`);
  if (error.attempts.length !== 0) throw new Error(`expected nothing sent, got ${error.attempts.length} attempt(s)`);
};
const wasReleased = (outcome: unknown): void => {
  if (!(outcome instanceof ReleaseResult) || outcome.expired) throw new Error('expected the lock released');
};
for (const [input, reason, check] of [['aborted with a reason', new Error('no'), causeIs('no')], ['aborted without a reason', undefined, undefined]] as const) {
  const more = check === undefined ? {} : { check };
  add('Redlock.acquire', 'aborted signal', `settings.signal ${input}`, (env) => env.redlock.acquire([kKey], 1000, { signal: abortedSignal(reason) }), aborted, more);
  add('Redlock.using', 'aborted signal', `settings.signal ${input}`, (env) => env.redlock.using([kKey], 1000, { signal: abortedSignal(reason) }, routine), aborted, more);
  add('Redlock.extend', 'aborted signal', `settings.signal ${input}`, (env) => env.redlock.extend(env.lock, 1000, { signal: abortedSignal(reason) }), aborted, { given: 'lock', ...more });
  add('Lock.extend', 'aborted signal', `settings.signal ${input}`, (env) => env.lock.extend(1000, { signal: abortedSignal(reason) }), aborted, { given: 'lock', ...more });
  // release neither waits nor retries, so there is nothing to cancel: the keys are deleted regardless.
  const released = { resolves: 'release() is never cancelled: it deletes the keys anyway' };
  add('Redlock.release', 'aborted signal', `settings.signal ${input}`, (env) => env.redlock.release(env.lock, { signal: abortedSignal(reason) }), released, { given: 'lock', check: wasReleased });
  add('Lock.release', 'aborted signal', `settings.signal ${input}`, (env) => env.lock.release({ signal: abortedSignal(reason) }), released, { given: 'lock', check: wasReleased });
}

// ─── closed: after quit(), and over clients the caller closed ───

const closedOnes: readonly [Fn, string, (env: Env) => unknown][] = [
  ['Redlock.acquire', 'acquire()', (env) => env.closed.acquire([kKey], 1000)],
  ['Redlock.using', 'using()', (env) => env.closed.using([kKey], 1000, routine)],
  ['Redlock.release', 'release(lock)', (env) => env.closed.release(env.closedLock)],
  ['Redlock.extend', 'extend(lock)', (env) => env.closed.extend(env.closedLock, 1000)],
  ['Redlock.ready', 'ready()', (env) => env.closed.ready()],
  ['Redlock.ready', 'ready(60000)', (env) => env.closed.ready(60_000)],
  ['Lock.release', 'lock.release()', (env) => env.closedLock.release()],
  ['Lock.extend', 'lock.extend()', (env) => env.closedLock.extend(1000)],
  ['runOnce', 'runOnce(closed redlock)', (env) => runOnce(env.closed, 'job', { windowMs: 60_000, leaseMs: 1000, maxAttempts: 1 }, routine)],
];
for (const [fn, input, call] of closedOnes) add(fn, 'closed client', `${input} after quit()`, call, closedError, { given: 'closed redlock' });
add('Redlock.quit', 'duplicate', 'quit() again', (env) => env.closed.quit(), { resolves: 'quit() is idempotent' }, { given: 'closed redlock' });
add('ReleaseResult.complete', 'closed client', 'complete() after quit()', (env) => env.closedResult.complete(),
  { resolves: 'the release was complete before quit(); complete() says so' }, { given: 'closed redlock', check: (outcome) => {
    if (!(outcome instanceof ReleaseResult) || outcome.released !== 3) throw new Error('expected all three masters to have released');
  } });
add('ReleaseResult.complete', 'duplicate', 'complete() twice', (env) => env.closedResult.complete().then(() => env.closedResult.complete()),
  { resolves: 'complete() resolves again with the same result' }, { given: 'closed redlock', check: (outcome) => {
    if (!(outcome instanceof ReleaseResult)) throw new Error('expected the ReleaseResult');
  } });
add('Redlock.acquire', 'closed client', 'over caller clients closed since', (env) => env.orphaned.acquire([kKey], 1000), unreachable, { given: 'closed caller clients' });
add('Redlock.using', 'closed client', 'over caller clients closed since', (env) => env.orphaned.using([kKey], 1000, routine), unreachable, { given: 'closed caller clients' });
add('Redlock.ready', 'closed client', 'ready(0) over caller clients closed since', (env) => env.orphaned.ready(0), unreachable, { given: 'closed caller clients' });

// ─── ready ───

for (const [category, value] of [['wrong type', '5'], ['wrong type', null], ['wrong type', {}], ['NaN', NaN], ['negative', -1], ['negative', -Infinity]] as const) {
  add('Redlock.ready', category, `timeoutMs = ${show(value)}`, (env) => env.redlock.ready(value as never), invalid('timeoutMs'));
}

// ─── runOnce ───

const kRunOnce = { windowMs: 60_000, leaseMs: 1000, maxAttempts: 1 };
const runOnceWith = (options: unknown) => (env: Env): unknown => runOnce(env.redlock, 'bad-input-job', options as never, routine);
for (const [category, value] of [['missing', undefined], ['wrong type', null], ['wrong type', {}], ['wrong type', 'redis://127.0.0.1:1']] as const) {
  add('runOnce', category, `redlock = ${show(value)}`, () => runOnce(value as never, 'job', kRunOnce, routine), invalid('redlock'));
}
for (const [category, value] of [['empty', ''], ['wrong type', 42], ['missing', undefined], ['wrong type', ['job']]] as const) {
  add('runOnce', category, `jobKey = ${show(value)}`, (env) => runOnce(env.redlock, value as never, kRunOnce, routine), invalid('jobKey'));
}
for (const [category, value] of [['missing', undefined], ['wrong type', 'job'], ['wrong type', {}]] as const) {
  add('runOnce', category, `job = ${show(value)}`, (env) => runOnce(env.redlock, 'job', kRunOnce, value as never), invalid('job'));
}
for (const [category, value] of [['missing', undefined], ['wrong type', null], ['wrong type', 'hourly'], ['wrong type', 3_600_000]] as const) {
  add('runOnce', category, `options = ${show(value)}`, runOnceWith(value), invalid('options'));
}
const POSITIVE_MS_BAD: readonly Bad[] = [
  ['missing', undefined], ['wrong type', '1000'], ['wrong type', null], ['zero', 0], ['negative', -1], ['fraction', 1.5],
  ['NaN', NaN], ['Infinity', Infinity], ['huge', 2 ** 53],
];
for (const [category, value] of POSITIVE_MS_BAD) {
  add('runOnce', category, `options.leaseMs = ${show(value)}`, runOnceWith({ ...kRunOnce, leaseMs: value }), invalid('options.leaseMs'));
  add('runOnce', category, `options.maxAttempts = ${show(value)}`, runOnceWith({ ...kRunOnce, maxAttempts: value }), invalid('options.maxAttempts'));
  // windowMs absent with no windowEnd is the 'neither' case below
  if (value !== undefined) add('runOnce', category, `options.windowMs = ${show(value)}`, runOnceWith({ ...kRunOnce, windowMs: value }), invalid('options.windowMs'));
}
add('runOnce', 'missing', 'neither options.windowMs nor options.windowEnd', runOnceWith({ leaseMs: 1000, maxAttempts: 1 }), invalid('options.windowMs'));
add('runOnce', 'conflict', 'both options.windowMs and options.windowEnd', runOnceWith({ ...kRunOnce, windowEnd: 2 ** 50 }), invalid('options.windowMs'));
for (const [category, value] of [['wrong type', '2030'], ['negative', -1], ['zero', 0], ['NaN', NaN], ['Infinity', Infinity], ['fraction', 2 ** 50 + 0.5], ['huge', 2 ** 53]] as const) {
  add('runOnce', category, `options.windowEnd = ${show(value)}`, runOnceWith({ leaseMs: 1000, maxAttempts: 1, windowEnd: value }), invalid('options.windowEnd'));
}
add('runOnce', 'too small', 'options.windowEnd in the past', (env) => runOnceWith({ leaseMs: 1000, maxAttempts: 1, windowEnd: Date.now() - 1000 })(env), invalid('options.windowEnd'));

// ─── fencedWrite ───

for (const [category, value] of [['missing', undefined], ['wrong type', null], ['wrong type', {}], ['wrong type', 'redis://127.0.0.1:1']] as const) {
  add('fencedWrite', category, `client = ${show(value)}`, () => fencedWrite(value as never, kKey, 1, 'v'), invalid('client'));
}
add('fencedWrite', 'closed client', 'client = a closed client', (env) => fencedWrite(env.closedClient, kKey, 1, 'v'), invalid('client'), { given: 'closed client' });
for (const [category, value] of [['empty', ''], ['wrong type', 42], ['missing', undefined], ['wrong type', ['k']]] as const) {
  add('fencedWrite', category, `key = ${show(value)}`, (env) => fencedWrite(env.client, value as never, 1, 'v'), invalid('key'));
}
for (const [category, value] of POSITIVE_MS_BAD) {
  add('fencedWrite', category, `fence = ${show(value)}`, (env) => fencedWrite(env.client, kKey, value as never, 'v'), invalid('fence'));
}
for (const [category, value] of [['missing', undefined], ['wrong type', null], ['wrong type', 42], ['wrong type', {}]] as const) {
  add('fencedWrite', category, `value = ${show(value)}`, (env) => fencedWrite(env.client, kKey, 1, value as never), invalid('value'));
}

// ─── pipelock/testing: startMasters and its masters ───

const startWith = (options: unknown) => (): unknown => startMasters(options as never);
for (const [category, value] of [['wrong type', null], ['wrong type', 'x'], ['wrong type', 3], ['wrong type', []]] as const) {
  add('startMasters', category, `options = ${show(value)}`, startWith(value), option('options'));
}
for (const name of ['cuont', 'port']) add('startMasters', 'unknown', `options.${name}`, startWith({ [name]: 1 }), option(name));
const MASTERS_BAD: readonly [string, readonly Bad[]][] = [
  ['count', [['wrong type', '3'], ['wrong type', true], ['zero', 0], ['negative', -1], ['fraction', 1.5], ['NaN', NaN], ['Infinity', Infinity], ['huge', 65]]],
  ['host', [['empty', ''], ['wrong type', 42], ['wrong type', ['127.0.0.1']]]],
  ['redisServer', [['empty', ''], ['wrong type', 42], ['wrong type', {}]]],
  ['extraArgs', [['wrong type', '--hz 10'], ['wrong type', ['--hz', 10]], ['wrong type', {}]]],
  ['env', [['wrong type', 'TZ=UTC'], ['wrong type', ['TZ=UTC']], ['wrong type', { TZ: 0 }]]],
  ['startTimeoutMs', [['wrong type', '100'], ['zero', 0], ['negative', -1], ['NaN', NaN], ['Infinity', Infinity]]],
  ['handleSignals', [['wrong type', 'yes'], ['wrong type', 1]]],
];
/** Every startMasters option the table tries (a test checks that none is missing). */
export const MASTERS_OPTIONS_TRIED: readonly string[] = MASTERS_BAD.map(([name]) => name);
for (const [name, bads] of MASTERS_BAD) {
  for (const [category, value] of bads) add('startMasters', category, `options.${name} = ${show(value)}`, startWith({ count: 1, handleSignals: false, [name]: value }), option(name));
}
add('startMasters', 'not found', 'options.redisServer = a path with no binary', startWith({ count: 1, handleSignals: false, redisServer: '/nonexistent/pipelock/redis-server' }),
  { error: RedisServerNotFoundError, code: 'ERR_REDIS_SERVER_NOT_FOUND', names: undefined });
add('startMasters', 'unknown', 'options.extraArgs = an unknown redis directive', startWith({ count: 1, handleSignals: false, extraArgs: ['--no-such-directive', 'x'] }),
  { error: MasterStartError, code: 'ERR_MASTER_START_FAILED', names: undefined });

// On a master of its own: a restart the checks let through must not empty the suite's masters.
const restartWith = (options: unknown) => (env: Env): unknown => env.spare.masters[0]!.restart(options as never);
for (const [category, value] of [['wrong type', null], ['wrong type', 'now'], ['wrong type', 100], ['wrong type', []]] as const) {
  add('LocalMaster.restart', category, `options = ${show(value)}`, restartWith(value), option('options'), { given: 'spare master' });
}
add('LocalMaster.restart', 'unknown', 'options.delay', restartWith({ delay: 5 }), option('delay'), { given: 'spare master' });
for (const [category, value] of [['wrong type', '10'], ['wrong type', null], ['negative', -1], ['NaN', NaN], ['Infinity', Infinity], ['negative', -Infinity], ['huge', 2 ** 31]] as const) {
  add('LocalMaster.restart', category, `options.delayMs = ${show(value)}`, restartWith({ delayMs: value }), option('delayMs'), { given: 'spare master' });
}
add('LocalMaster.restart', 'duplicate', 'a second restart() while one is in progress', (env) => {
  const master = env.spare.masters[0]!;
  const first = master.restart();
  return master.restart().finally(() => first);
}, stateError, { given: 'spare master' });
add('LocalMaster.restart', 'closed client', 'restart() after close()', (env) => env.spare.masters[0]!.restart(), stateError, { given: 'closed masters' });
add('LocalMaster.pause', 'closed client', 'pause() of a stopped master', (env) => { env.spare.masters[0]!.pause(); }, stateError, { given: 'stopped master' });
add('LocalMaster.flush', 'closed client', 'flush() of a stopped master', (env) => env.spare.masters[0]!.flush(), stateError, { given: 'stopped master' });
add('LocalMaster.flush', 'paused', 'flush() of a paused master', (env) => env.spare.masters[0]!.flush(), stateError, { given: 'paused master' });
add('LocalMasters.close', 'duplicate', 'close() twice', (env) => env.spare.close().then(() => env.spare.close()), { resolves: 'close() is idempotent' }, { given: 'spare master' });

// ─── pipelock loadtest: every flag ───

const INT_FLAGS: readonly [string, number, number][] = [['--masters', 1, 64], ['--workers', 1, 256], ['--concurrency', 1, 100_000], ['--keys', 1, 1e9], ['--retry-count', -1, 1e6], ['--permits', 1, 1024], ['--kills', 1, 10_000]];
const TIME_FLAGS: readonly [string, number][] = [['--duration', 1], ['--warmup', 0], ['--hold', 0], ['--lock-duration', 1], ['--retry-delay', 0], ['--retry-jitter', 0]];
const FLAG_BAD: [string, Category, string][] = [];
for (const [flag, min, max] of INT_FLAGS) {
  FLAG_BAD.push([flag, 'wrong type', 'abc'], [flag, 'wrong type', '1e3'], [flag, 'empty', ''], [flag, 'negative', String(Math.min(min, 0) - 1)],
    [flag, 'NaN', 'NaN'], [flag, 'fraction', '1.5'], [flag, 'huge', String(max + 1)], [flag, 'Infinity', 'Infinity']);
  if (min > 0) FLAG_BAD.push([flag, 'zero', '0']);
}
FLAG_BAD.push(['--rate', 'wrong type', 'fast'], ['--rate', 'empty', ''], ['--rate', 'negative', '-1'], ['--rate', 'NaN', 'NaN'],
  ['--rate', 'zero', '0'], ['--rate', 'huge', '1e7'], ['--rate', 'Infinity', 'Infinity']);
for (const [flag, min] of TIME_FLAGS) {
  FLAG_BAD.push([flag, 'wrong type', 'abc'], [flag, 'wrong type', '10h'], [flag, 'empty', ''], [flag, 'negative', '-1'], [flag, 'NaN', 'NaN'],
    [flag, 'Infinity', 'Infinity'], [flag, 'huge', '1441m']);
  if (min > 0) FLAG_BAD.push([flag, 'zero', '0']);
}
FLAG_BAD.push(['--kind', 'unknown', 'mutexes'], ['--kind', 'wrong type', 'SEMAPHORE']);
FLAG_BAD.push(['--operation', 'unknown', 'lock'], ['--operation', 'wrong type', 'ACQUIRE-RELEASE'], ['--operation', 'empty', ''], ['--operation', 'wrong type', '1']);
FLAG_BAD.push(['--kind', 'unknown', 'spinlock'], ['--kind', 'wrong type', 'REENTRANT'], ['--kind', 'empty', ''], ['--kind', 'wrong type', '1']);
for (const flag of ['--json', '--html']) FLAG_BAD.push([flag, 'empty', ''], [flag, 'empty', ' ']);
FLAG_BAD.push(['--servers', 'empty', ''], ['--servers', 'wrong type', 'http://x:1'], ['--servers', 'wrong type', 'not a url'], ['--servers', 'empty', 'redis://'],
  ['--servers', 'empty', 'redis://a:1,,redis://b:2'], ['--servers', 'empty', 'redis://a:1,'], ['--servers', 'duplicate', 'redis://a:1,redis://a:1']);
// A time with no zone, a past one, one beyond 24 h.
FLAG_BAD.push(['--start-at', 'wrong type', '2030-01-01T12:00:00'], ['--start-at', 'wrong type', 'soon'], ['--start-at', 'empty', ''], ['--start-at', 'NaN', '@NaN'],
  ['--start-at', 'too small', '2020-01-01T00:00:00Z'], ['--start-at', 'negative', '@-5'], ['--start-at', 'huge', '@99999999999']);
const kValid: Readonly<Record<string, string>> = {
  '--servers': 'redis://a:1', '--masters': '3', '--workers': '2', '--concurrency': '4', '--rate': '10', '--duration': '1s', '--warmup': '0',
  '--keys': '10', '--hold': '0', '--lock-duration': '1000', '--retry-count': '1', '--retry-delay': '5', '--retry-jitter': '5',
  '--operation': 'using', '--kind': 'semaphore', '--depth': '3', '--permits': '4', '--kills': '5', '--json': 'a.json', '--html': 'a.html', '--start-at': `@${Math.round(Date.now() / 1000) + 3600}`,
};
/** The flags of thresholds, scenarios, sweeps and live export: repeatable or switches, so tried by their own cases below. */
const LOADTEST_RUN_CASES: readonly [Category, readonly string[], string][] = [
  ['missing', ['--scenario'], '--scenario'], ['unknown', ['--scenario', '/nonexistent/pipelock-scenario.yaml'], '--scenario'],
  ['missing', ['--threshold'], '--threshold'], ['empty', ['--threshold', ''], '--threshold'], ['wrong type', ['--threshold', 'acquire.p99'], '--threshold'],
  ['unknown', ['--threshold', 'nope.p99<2ms'], '--threshold'], ['wrong type', ['--threshold', 'acquire.p99<fast'], '--threshold'],
  ['wrong type', ['--abort-on-fail=1'], '--abort-on-fail'], ['conflict', ['--abort-grace', '1s'], '--abort-grace'],
  ['missing', ['--abort-on-fail', '--abort-grace'], '--abort-grace'], ['negative', ['--abort-on-fail', '--abort-grace', '-1'], '--abort-grace'],
  ['wrong type', ['--sweep=1'], '--sweep'], ['conflict', ['--sweep-step', 'x2'], '--sweep-step'], ['conflict', ['--sweep-steps', '3'], '--sweep-steps'],
  ['wrong type', ['--sweep', '--rate', '10', '--threshold', 'acquire.p99<2ms', '--sweep-step', 'fast'], '--sweep-step'],
  ['too small', ['--sweep', '--rate', '10', '--threshold', 'acquire.p99<2ms', '--sweep-steps', '1'], '--sweep-steps'],
  ['conflict', ['--sweep-confirm', '1'], '--sweep-confirm'],
  ['negative', ['--sweep', '--rate', '10', '--threshold', 'acquire.p99<2ms', '--sweep-confirm', '-1'], '--sweep-confirm'],
  ['missing', ['--otlp'], '--otlp'], ['wrong type', ['--otlp', 'not a url'], '--otlp'], ['empty', ['--otlp', ''], '--otlp'],
];
/** Every loadtest flag the table tries (a test checks them against --help). */
export const LOADTEST_FLAGS_TRIED: readonly string[] = [...Object.keys(kValid), ...new Set(LOADTEST_RUN_CASES.map(([, args]) => args[0]!.replace(/=.*/, '')))];
const loadtest = (args: readonly string[]) => (): unknown => parseLoadFlags(args);
for (const [flag, category, value] of FLAG_BAD) add('pipelock loadtest', category, `${flag} ${show(value)}`, loadtest([flag, value]), usage(flag));
for (const [flag, value] of Object.entries(kValid)) {
  add('pipelock loadtest', 'missing', `${flag} without its value`, loadtest([flag]), usage(flag));
  add('pipelock loadtest', 'duplicate', `${flag} given twice`, loadtest([flag, value, flag, value]), usage(flag));
}
const LOADTEST_OTHER: readonly [Category, readonly string[], string][] = [
  ['unknown', ['--nope'], '--nope'], ['unknown', ['--Workers', '2'], '--Workers'], ['unknown', ['--work', '2'], '--work'], ['unknown', ['-x'], '-x'],
  ['unknown', ['stray'], 'stray'], ['wrong type', ['--help=1'], '--help'], ['duplicate', ['--help', '--help'], '--help'],
  ['missing', ['--workers', '--keys', '5'], '--workers'],
  ['conflict', ['--servers', 'redis://a:1', '--masters', '3'], '--masters'], ['conflict', ['--rate', '10', '--concurrency', '4'], '--rate'],
  ['conflict', ['--rate', '10', '--operation', 'renew-hold'], '--rate'], ['conflict', ['--operation', 'renew-hold', '--hold', '5'], '--hold'],
  ['too small', ['--operation', 'using', '--lock-duration', '600'], '--lock-duration'], ['conflict', ['--hold', '5s', '--lock-duration', '5s'], '--hold'],
  ['conflict', ['--json', 'x', '--html', 'x'], '--html'],
  ['conflict', ['--depth', '3'], '--depth'],
  ...(['abc', '0', '-1', '1.5', '1001', 'NaN'] as const).map((v): [Category, readonly string[], string] => [v === '0' ? 'zero' : v === '-1' ? 'negative' : v === '1.5' ? 'fraction' : v === '1001' ? 'huge' : v === 'NaN' ? 'NaN' : 'wrong type', ['--kind', 'reentrant', '--depth', v], '--depth']), ['conflict', ['--kind', 'reentrant', '--operation', 'using'], '--kind'],
  ['conflict', ['--permits', '4'], '--permits'], ['conflict', ['--kind', 'rw', '--permits', '4'], '--permits'],
  ['conflict', ['--kills', '5'], '--kills'], ['conflict', ['--kind', 'election', '--workers', '2'], '--workers'],
  ['conflict', ['--kind', 'election', '--operation', 'using'], '--operation'], ['too small', ['--kind', 'election', '--lock-duration', '50'], '--lock-duration'],
];
for (const [category, args, flag] of [...LOADTEST_OTHER, ...LOADTEST_RUN_CASES]) add('pipelock loadtest', category, args.join(' '), loadtest(args), usage(flag));

// ─── pipelock report merge ───

const report = (args: readonly string[]) => (): unknown => parseReportArgs(args);
const REPORT_BAD: readonly [Category, readonly string[], string][] = [
  ['missing', [], 'report'], ['unknown', ['mrege', 'a.json', 'b.json'], 'report'], ['empty', ['', 'a.json', 'b.json'], 'report'],
  ['missing', ['merge'], 'report merge'], ['too small', ['merge', 'a.json'], 'report merge'],
  ['duplicate', ['merge', 'a.json', 'a.json'], 'report merge'], ['duplicate', ['merge', 'a.json', 'b.json', 'a.json'], 'report merge'],
  ['unknown', ['merge', 'a.json', 'b.json', '--bogus'], '--bogus'], ['unknown', ['merge', 'a.json', 'b.json', '-j', 'x'], '-j'],
  ['missing', ['merge', 'a.json', 'b.json', '--json'], '--json'], ['missing', ['merge', 'a.json', 'b.json', '--html'], '--html'],
  ['empty', ['merge', 'a.json', 'b.json', '--json', ''], '--json'], ['empty', ['merge', 'a.json', 'b.json', '--html', ' '], '--html'],
  ['conflict', ['merge', 'a.json', 'b.json', '--json', 'x', '--html', 'x'], '--html'],
  ['duplicate', ['merge', 'a.json', 'b.json', '--json', 'x', '--json', 'y'], '--json'], ['duplicate', ['merge', 'a.json', 'b.json', '--html', 'x', '--html', 'y'], '--html'],
  ['wrong type', ['merge', 'a.json', 'b.json', '--help=1'], '--help'],
];
for (const [category, args, flag] of REPORT_BAD) add('pipelock report', category, args.map((arg) => (arg === '' ? '""' : arg)).join(' ') || '(nothing)', report(args), usage(flag));

// ─── pipelock <command> (a child process each: the command switch lives in the bin) ───

const COMMANDS_BAD: readonly [Category, readonly string[], RegExp][] = [
  ['missing', [], /^usage: pipelock <command>/],
  ['unknown', ['frobnicate'], /^pipelock: unknown command "frobnicate"/],
  ['empty', [''], /^pipelock: unknown command ""/],
  ['wrong type', ['LOADTEST'], /^pipelock: unknown command "LOADTEST"/],
];
for (const [category, args, stderr] of COMMANDS_BAD) {
  add('pipelock', category, args.length === 0 ? '(no command)' : show(args[0]), (): Promise<Exit> => cli([...args], { limitMs: 30_000 }), { exit: 2, stderr });
}

export const BAD_INPUTS: readonly BadInputCase[] = Object.freeze(cases);
