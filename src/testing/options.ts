import { InvalidOptionError } from './errors.js';

/** Options of `startMasters`; each is checked and a bad one throws `InvalidOptionError`. */
export interface StartMastersOptions {
  /** How many independent masters to start, an integer 1..64. @default 5 */
  count?: number;
  /** Address each server binds and clients connect to. @default '127.0.0.1' */
  host?: string;
  /** The server binary. @default process.env.PIPELOCK_REDIS_SERVER ?? 'redis-server' */
  redisServer?: string;
  /** Appended to every server's command line. @default [] */
  extraArgs?: readonly string[];
  /** Added to every server's environment (e.g. LD_PRELOAD of libfaketime). @default {} */
  env?: Readonly<Record<string, string>>;
  /** How long a server may take to answer PING. @default 10_000 */
  startTimeoutMs?: number;
  /**
   * Kill the servers on SIGINT/SIGTERM, then let the signal take its default course.
   * Turn off when the process handles those signals itself. @default true
   */
  handleSignals?: boolean;
}

export interface ResolvedMastersOptions {
  readonly count: number;
  readonly host: string;
  readonly redisServer: string;
  readonly extraArgs: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly startTimeoutMs: number;
  readonly handleSignals: boolean;
}

export const kMastersDefaults = Object.freeze({
  count: 5,
  host: '127.0.0.1',
  redisServer: 'redis-server',
  extraArgs: Object.freeze([] as string[]),
  env: Object.freeze({}) as Readonly<Record<string, string>>,
  startTimeoutMs: 10_000,
  handleSignals: true,
});

export const kMaxMasters = 64;

export function resolveMastersOptions(options: StartMastersOptions = {}): ResolvedMastersOptions {
  checkObject('options', options, Object.keys(kMastersDefaults));
  const count = options.count ?? kMastersDefaults.count;
  if (!Number.isInteger(count) || count < 1 || count > kMaxMasters) {
    throw new InvalidOptionError('count', `an integer from 1 to ${kMaxMasters}`, count);
  }
  const startTimeoutMs = options.startTimeoutMs ?? kMastersDefaults.startTimeoutMs;
  if (!Number.isFinite(startTimeoutMs) || startTimeoutMs <= 0) {
    throw new InvalidOptionError('startTimeoutMs', 'a positive finite number', startTimeoutMs);
  }
  return Object.freeze({
    count,
    host: nonEmptyString('host', options.host ?? kMastersDefaults.host),
    redisServer: nonEmptyString('redisServer', options.redisServer ?? redisServerFromEnv()),
    extraArgs: stringArray('extraArgs', options.extraArgs ?? kMastersDefaults.extraArgs),
    env: stringRecord('env', options.env ?? kMastersDefaults.env),
    startTimeoutMs,
    handleSignals: boolean('handleSignals', options.handleSignals ?? kMastersDefaults.handleSignals),
  });
}

/** Node's timers cut a longer delay to 1 ms. */
const kMaxDelayMs = 2 ** 31 - 1;

/** Validates `restart({ delayMs })`. */
export function resolveDelayMs(delayMs: number | undefined): number {
  if (delayMs === undefined) return 0;
  if (!Number.isFinite(delayMs) || delayMs < 0 || delayMs > kMaxDelayMs)
    throw new InvalidOptionError('delayMs', `a finite number from 0 to ${kMaxDelayMs}`, delayMs);
  return delayMs;
}

/** Validates `restart(options)`: an object whose only option is delayMs. */
export function resolveRestartOptions(options: unknown): { delayMs: number; redisServer: string | undefined } {
  if (options === undefined) return { delayMs: 0, redisServer: undefined };
  checkObject('options', options, ['delayMs', 'redisServer']);
  const given = options as { delayMs?: number; redisServer?: string };
  return { delayMs: resolveDelayMs(given.delayMs),
    redisServer: given.redisServer === undefined ? undefined : nonEmptyString('redisServer', given.redisServer) };
}

/** JavaScript callers are not held to the types: a non-object or a misspelt option is named, not ignored. */
function checkObject(name: string, value: unknown, known: readonly string[]): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidOptionError(name, 'an object', value);
  for (const [key, given] of Object.entries(value)) {
    if (given !== undefined && !known.includes(key)) throw new InvalidOptionError(key, `a known option (${known.join(', ')})`, given);
  }
}

// Read at call time, not at load time, so a caller can point at another binary; set-but-empty
// counts as unset, as it does in scripts/ensure-redis.sh.
function redisServerFromEnv(): string {
  const fromEnv = process.env.PIPELOCK_REDIS_SERVER;
  return fromEnv === undefined || fromEnv === '' ? kMastersDefaults.redisServer : fromEnv;
}

// The checks below take `unknown` because JavaScript callers are not held to the types.
function nonEmptyString(option: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') throw new InvalidOptionError(option, 'a non-empty string', value);
  return value;
}

function stringArray(option: string, value: unknown): readonly string[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    throw new InvalidOptionError(option, 'an array of strings', value);
  }
  return Object.freeze([...value] as string[]);
}

function stringRecord(option: string, value: unknown): Readonly<Record<string, string>> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)
    || !Object.values(value).every((item) => typeof item === 'string')) {
    throw new InvalidOptionError(option, 'an object of string values', value);
  }
  return Object.freeze({ ...(value as Record<string, string>) });
}

function boolean(option: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw new InvalidOptionError(option, 'a boolean', value);
  return value;
}
