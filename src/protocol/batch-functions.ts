/** Fencing counters live 7 days after last use; one created again starts from the master's clock in µs (fence below). */
export const FENCE_RETENTION_MS = 7 * 24 * 3600 * 1000;

/** The batch script's local functions (src/protocol/batch-script.ts), defined before its loop over the operations. */
export const BATCH_FUNCTIONS = `local function fence(i, j)
  local t = redis.call('TIME')
  local floor = tonumber(t[1]) * 1000000 + tonumber(t[2])
  local top = 0
  for x = i, j do
    local c
    if redis.call('EXISTS', KEYS[x]) == 1 then
      c = redis.call('INCR', KEYS[x])
    else
      c = floor
      redis.call('SET', KEYS[x], string.format('%d', c))
    end
    redis.call('PEXPIRE', KEYS[x], ${FENCE_RETENTION_MS})
    if c > top then top = c end
  end
  return top
end
-- Readers live in a sorted set scored by their expiry on this master's clock (TIME, never the
-- client's), so a dead reader's entry expires by itself; the key's own TTL follows the last one.
local function clock()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function readers(z, now)
  local kind = redis.call('TYPE', z).ok
  if kind ~= 'zset' then return kind == 'none' end
  redis.call('ZREMRANGEBYSCORE', z, '-inf', now)
  return true
end
local function rearm(z, now)
  local top = redis.call('ZRANGE', z, -1, -1, 'WITHSCORES')
  if top[2] then redis.call('PEXPIRE', z, math.max(1, tonumber(top[2]) - now)) end
end
-- A semaphore's release counter outlives every permit (waiters read it; gone, it would read as
-- released): created with each permit granted or extended, and re-armed to twice its ttl once it
-- has less than its ttl left, so that grants seldom touch it (every touch wakes a waiter).
local function counter(c, ttl)
  local twice = 2 * tonumber(ttl)
  if not redis.call('SET', c, '0', 'NX', 'PX', twice) and redis.call('PTTL', c) < tonumber(ttl) then
    redis.call('PEXPIRE', c, twice)
  end
end
-- The waiting heads of every process queue at the gate (src/waiting/gate.ts): q scores each
-- head's id by its arrival on this master's clock (µs), and a free lock goes to the first. The
-- first sighting of the lock free with another first marks that first, its score made minus the
-- time (it stays first); past bypass µs anyone may take the lock and the first keeps its place;
-- past grace µs the first loses it, unless it came since, which clears the mark. A head granted
-- here stays in line: its quorum may still refuse it (the release not yet everywhere), and its
-- client takes it out once its call is over (src/waiting/waiters.ts, leave).
local function micros()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end
-- n when the n keys from KEYS[k + 1] all hold token, else 0.
local function ours(k, n, token)
  for i = k + 1, k + n do
    if redis.pcall('GET', KEYS[i]) ~= token then return 0 end
  end
  return n
end
-- 0: held; -1: free, another's turn; 1: free, nobody in line; 2: free, the first in line bypassed;
-- 3: this one is first (free or not).
local function turn(q, id, bypass, grace, free)
  while true do
    local front = redis.call('ZRANGE', q, 0, 0, 'WITHSCORES')
    local first, score = front[1], tonumber(front[2])
    if not first then return free and 1 or 0 end
    if first == id then
      if score < 0 then redis.call('ZADD', q, 0, id) end
      return 3
    end
    if not free then return 0 end
    local now = micros()
    if score >= 0 then
      redis.call('ZADD', q, -now, first)
      return -1
    end
    if now + score <= bypass then return -1 end
    if now + score <= grace then return 2 end
    redis.call('ZREM', q, first)
  end
end
-- A string key's value, or false where it is absent or of another type (a read that never fails the call).
local function value(key)
  local v = redis.pcall('GET', key)
  if type(v) ~= 'string' then return false end
  return v
end`;
