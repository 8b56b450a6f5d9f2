/** How many changes an election's history keeps, and for how long after the last one (ms). */
export const kHistoryLength = 128;
export const kHistoryTtlMs = 86_400_000;

/**
 * The batch script's operations for an election's record (src/kinds/election/record.ts) and for
 * the reads the engine makes (MasterSet.read): `elseif` branches of its loop, with its locals `k`
 * (keys before this operation), `n` (its keys), `token`, `ttl`, `extra` and its reply `r`.
 *   L: keys lock, record, history: while the lock key holds the token, the record becomes `ttl` (its
 *      JSON) and `extra` (the change) is appended to the history, which keeps its last
 *      kHistoryLength changes for kHistoryTtlMs after the last: 1; else 0 (a stale leader writes nothing);
 *   K: keys lock, record[, history]: the record deleted while the lock key holds the token; with the
 *      history, the change `extra` taken out of it first (a campaign given up): always 1, since an
 *      erase where the lock key is already another's or gone leaves nothing of this holder;
 *   M: keys lock, record: both values (false where absent), as one read;
 *   Y: key history: every change it holds, oldest first;
 *   J: any keys: per key its TYPE and its PTTL with any time left as 1 (-1: no TTL; -2: absent): why
 *      a refused acquisition's keys may not be locks (the same words on every master, and in the simulation).
 * The reads (M, Y, J) answer data, not an integer: their Read takes the reply as it is (src/engine/read.ts).
 */
export const ELECTION_OPS = `  elseif op == 'L' then
    if redis.pcall('GET', KEYS[k + 1]) == token then
      local h = KEYS[k + 3]
      redis.call('SET', KEYS[k + 2], ttl)
      redis.call('RPUSH', h, extra)
      redis.call('LTRIM', h, -${kHistoryLength}, -1)
      redis.call('PEXPIRE', h, ${kHistoryTtlMs})
      r = 1
    end
  elseif op == 'K' then
    if n == 3 then redis.pcall('LREM', KEYS[k + 3], 0, extra) end
    if redis.pcall('GET', KEYS[k + 1]) == token then redis.call('DEL', KEYS[k + 2]) end
    r = 1
  elseif op == 'M' then
    r = { value(KEYS[k + 1]), value(KEYS[k + 2]) }
  elseif op == 'Y' then
    r = redis.pcall('LRANGE', KEYS[k + 1], 0, -1)
    if r.err then r = {} end
  elseif op == 'J' then
    r = {}
    for i = k + 1, k + n do
      r[#r + 1] = redis.call('TYPE', KEYS[i]).ok
      r[#r + 1] = math.min(redis.call('PTTL', KEYS[i]), 1)
    end`;
