import { createHash } from 'node:crypto';

/**
 * The owner-checked delete of one key, for a release that is the only operation of its call (what
 * a lock taken one at a time sends): the smallest script that does it, as the per-command ceiling
 * of bench:peers sends. LEAN_SCRIPT's generality (its shape argument, its reply table) is paid for
 * per call, and at one lock in flight every call is a lone one (docs/decisions/0006-lone-calls.md).
 * GET runs under pcall, as in the other scripts, so a key of another type is "not ours".
 * The reply is 1 when the key held the token and was deleted, else 0.
 */
export const RELEASE_SCRIPT = `if redis.pcall('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

export const RELEASE_SHA = createHash('sha1').update(RELEASE_SCRIPT).digest('hex');

/** `EVALSHA RELEASE_SHA 1 key token`. */
export function releaseArgs(key: string, token: string): string[] {
  return ['EVALSHA', RELEASE_SHA, '1', key, token];
}
