import { createHash } from 'node:crypto';

/**
 * The owner-checked delete of one key, for a release alone in its call: the smallest script that does it, since
 * LEAN_SCRIPT's generality is paid per call (docs/decisions/0006-lone-calls.md). GET under pcall: another type is
 * "not ours". Replies 1 when deleted, else 0.
 */
export const RELEASE_SCRIPT = `if redis.pcall('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

export const RELEASE_SHA = createHash('sha1').update(RELEASE_SCRIPT).digest('hex');

/** `EVALSHA RELEASE_SHA 1 key token`. */
export function releaseArgs(key: string, token: string): string[] {
  return ['EVALSHA', RELEASE_SHA, '1', key, token];
}
