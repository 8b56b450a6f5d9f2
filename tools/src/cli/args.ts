import { redactUrl } from '../shared/redact-url.js';
import { parseThreshold, ThresholdSyntaxError, type Threshold } from '../load/thresholds.js';
import { UsageError } from './errors.js';

/** The command line's pieces every pipelock command reads the same way: values of flags, and parseArgs's quirks. */
const kMaxMs = 24 * 3_600_000;

/** parseArgs reads `--retry-count -1` as two flags; a negative number after a flag is its value. */
export function negativeValues(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const next = args[i + 1];
    if (arg.startsWith('--') && !arg.includes('=') && next !== undefined && /^-\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else {
      out.push(arg);
    }
  }
  return out;
}

/** parseArgs keeps the last of a repeated flag; a second --duration is a typo more often than a wish. */
export function checkRepeats(tokens: readonly { kind: string; name?: string; rawName?: string }[]): void {
  const seen = new Set<string>();
  for (const token of tokens) {
    if (token.kind !== 'option' || token.name === undefined) continue;
    if (seen.has(token.name)) throw new UsageError(token.rawName ?? `--${token.name}`, 'is given more than once');
    seen.add(token.name);
  }
}

/** parseArgs's own errors as a UsageError naming the flag; `command` as in `pipelock <command> --help`. */
export function fromParseArgs(error: unknown, command: string): UsageError {
  if (error instanceof UsageError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown }).code;
  const flag = /'([^' ]+)/.exec(message)?.[1] ?? command;
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION')
    return new UsageError(flag, `is not a ${command} flag (see pipelock ${command.split(' ')[0]!} --help)`);
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return new UsageError(flag, flag === '--help' ? 'takes no value' : 'needs a value');
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL')
    return new UsageError(flag, `is not a flag: ${command} takes only --flags (see --help)`);
  return new UsageError(command, message);
}

export function int(flag: string, value: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max)
    throw new UsageError(flag, `must be an integer from ${min} to ${max}`, value);
  return n;
}

export function num(flag: string, value: string, max: number): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0 || n > max)
    throw new UsageError(flag, `must be a number > 0 and ≤ ${max}`, value);
  return n;
}

const kUnits: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000 };

/** `10`, `10s`, `1500ms`, `2m`, `0.5s`; a bare number is in `bare` units. Returns ms. */
export function time(flag: string, value: string, bare: 's' | 'ms', min: number): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(value.trim());
  const ms = match === null ? NaN : Number(match[1]) * kUnits[match[2] ?? bare]!;
  if (!Number.isFinite(ms) || ms < min || ms > kMaxMs) {
    throw new UsageError(flag,
      `must be a time from ${min}ms to 24h, e.g. 10s, 1500ms or 2m (a bare number is ${bare === 's' ? 'seconds' : 'ms'})`, value);
  }
  return Math.round(ms);
}

/** A --threshold rule, its syntax error named with the flag. */
export function rule(flag: string, value: string): Threshold {
  try {
    return parseThreshold(value);
  } catch (error) {
    if (error instanceof ThresholdSyntaxError)
      throw new UsageError(flag, error.message.slice(JSON.stringify(error.rule).length + 1), value);
    throw error;
  }
}

export function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(flag, `must be one of ${allowed.join(', ')}`, value);
  return value as T;
}

/** `2026-05-01T12:00:00Z`, `…+02:00`, or `@1777636800` (as `date +@%s` prints); in the future, within 24 h. */
export function startAt(value: string): number {
  const v = value.trim();
  const epoch = /^@(\d+(?:\.\d+)?)$/.exec(v);
  // A time without a zone would mean something else on each machine.
  const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(v);
  const ms = epoch !== null ? Number(epoch[1]) * 1000 : iso ? Date.parse(v) : NaN;
  if (!Number.isFinite(ms))
    throw new UsageError('--start-at', 'must be an ISO 8601 time with a zone (2026-05-01T12:00:00Z) or @EPOCH seconds', value);
  const now = Date.now();
  if (ms <= now) throw new UsageError('--start-at', `must be in the future (it is ${new Date(now).toISOString()})`, value);
  if (ms > now + kMaxMs) throw new UsageError('--start-at', 'must be within 24 h', value);
  return Math.round(ms);
}

export function path(flag: string, value: string): string {
  if (value.trim() === '') throw new UsageError(flag, 'must name a file');
  return value;
}

const kServerSchemes = new Set(['redis:', 'rediss:']);
const kMemberSchemes = new Set([...kServerSchemes, 'redis+cluster:', 'rediss+cluster:']);

/** `clusters`: entries may name a Redis Cluster member (redis+cluster://, src/load/members.ts). */
export function parseServers(value: string, clusters = false): string[] {
  const schemes = clusters ? kMemberSchemes : kServerSchemes;
  const urls = value.split(',').map((url) => url.trim());
  urls.forEach((url, i) => {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch { /* reported below */ }
    if (parsed === undefined || !schemes.has(parsed.protocol) || parsed.hostname === '') {
      throw new UsageError('--servers',
        `must be comma-separated redis:// or rediss:// URLs${clusters ? ' (redis+cluster:// for a Redis Cluster member)' : ''}; entry `
          + `${i + 1} is not`, parsed === undefined ? url : redactUrl(url));
    }
    const first = urls.indexOf(url);
    if (first !== i) throw new UsageError('--servers',
      `must not repeat a master (entry ${i + 1} repeats entry ${first + 1}): it would vote twice`, redactUrl(url));
  });
  return urls;
}

