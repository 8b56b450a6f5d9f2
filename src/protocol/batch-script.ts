import { createHash } from 'node:crypto';
import { BATCH_FUNCTIONS, FENCE_RETENTION_MS } from './batch-functions.js';
import { ELECTION_OPS } from './election-ops.js';
import { argsOf, argvStepLua, type OpArgs } from './opcodes.js';

export { FENCE_RETENTION_MS } from './batch-functions.js';
export const DONE_MARKER = 'pipelock:done';

/**
 * One script for every per-key operation, so the operations of many locks issued in one tick
 * travel to a master as one EVALSHA and run there back to back. KEYS holds each operation's keys in
 * order; ARGV holds per operation its code (followed by its key count when that is not 1, e.g.
 * 'A3'), its token, then a ttl in ms and one more argument for the operations that take them (the
 * table of src/protocol/opcodes.ts, from which the script's argument stepping is generated): fewer
 * arguments per operation are less work for Redis than a fixed 4-tuple (docs/decisions/0001).
 * The reply is one integer per operation:
 *   A: all keys set (count) or none (0) — all-or-nothing, so a multi-resource lock never half-forms
 *      (one key: a single SET NX, the cheapest form);
 *   E: all keys still ours and re-armed (count) or none touched (0);
 *   R: how many keys were ours and deleted;
 *   F: like A for the first half of the keys, then the fencing counters of the second half are
 *      incremented (created from the master's clock in µs when absent): the largest value, or 0;
 *   X: raise counters to at least the target: the largest value they had before (0 if none);
 *   I: INCR with a TTL: the largest new value;  D: owner-checked done-marker with a TTL: 1 or 0;
 *   Q: 1 when every key holds the done-marker;
 *   P: semaphore slot keys, then its release counter; slot `pref` (0-based) taken with SET NX (the
 *      counter kept alive as long): pref + 1; else the first free slot after it (cyclically) + 1,
 *      not taken, as a hint; 0 when every slot is held;
 *   T: keys slot, counter: PEXPIRE the slot (and the counter at least as long) if it holds the token: 1 or 0;
 *   V: keys slot, counter: DEL the slot if it holds the token, then INCR the counter: 1 or 0;
 *   r: keys readers (sorted set: token → expiry on the server's clock), writer, writer-waiting:
 *      expired readers dropped; with no writer and nobody waiting to write, the token joins: 1;
 *   e / u: owner-checked re-arm / removal of the token in the readers set (expired ones dropped first): 1 or 0;
 *   W: same keys as r: with no writer and no live reader, SET writer token PX ttl and clear the
 *      waiting marker: 1; refused by readers: the marker is set for `extra` ms: 0;
 *   G: lock keys, then the gate's turns (see turn below); `extra` is "bypass grace id" (µs, µs): free
 *      and this waiter's turn (or the first past its bypass), the keys are set: 1 (it stays in the turns
 *      until its client takes it out); else it joins them: 0 held, -1 free but another's turn;
 *   H: every key holds the token `extra`: each set to the op's token with the ttl (count), else none touched (0);
 *   Z: lock keys, then their revoked-markers: each lock key deleted unchecked and, where it existed, its marker set to
 *      the token it held (empty for a kind's set: any holder), a newline and `token` (the reason): 1 + deleted.
 *   L, K, M, Y, J: an election's record and history, and the reads of a refused acquisition's keys (src/protocol/election-ops.ts).
 * GET runs under pcall so a foreign key of another type counts as "not ours" instead of raising,
 * which would fail every other lock coalesced into the same call.
 */
export const BATCH_SCRIPT = `local out = {}
local k = 0
${BATCH_FUNCTIONS}
local a = 1
local last = #ARGV
while a <= last do
  local op, token, ttl, extra = ARGV[a], ARGV[a + 1], ARGV[a + 2], ARGV[a + 3]
  local n = 1
  if #op > 1 then
    n = tonumber(string.sub(op, 2))
    op = string.sub(op, 1, 1)
  end
  ${argvStepLua()}
  local r = 0
  if op == 'A' then
    if n == 1 then
      if redis.call('SET', KEYS[k + 1], token, 'NX', 'PX', ttl) then r = 1 end
    else
      r = n
      for i = k + 1, k + n do
        if redis.call('EXISTS', KEYS[i]) == 1 then r = 0 break end
      end
      if r == n then
        for i = k + 1, k + n do redis.call('SET', KEYS[i], token, 'PX', ttl) end
      end
    end
  elseif op == 'E' then
    r = ours(k, n, token)
    if r == n then
      for i = k + 1, k + n do redis.call('PEXPIRE', KEYS[i], ttl) end
    end
  elseif op == 'R' then
    for i = k + 1, k + n do
      if redis.pcall('GET', KEYS[i]) == token then
        redis.call('DEL', KEYS[i])
        r = r + 1
      end
    end
  elseif op == 'F' then
    local m = n / 2
    r = 1
    for i = k + 1, k + m do
      if redis.call('EXISTS', KEYS[i]) == 1 then r = 0 break end
    end
    if r == 1 then
      for i = k + 1, k + m do redis.call('SET', KEYS[i], token, 'PX', ttl) end
      r = fence(k + m + 1, k + n)
    end
  elseif op == 'X' then
    local target = tonumber(token)
    for i = k + 1, k + n do
      local prev = tonumber(redis.pcall('GET', KEYS[i])) or 0
      if prev > r then r = prev end
      if prev < target then redis.call('SET', KEYS[i], token) end
      redis.call('PEXPIRE', KEYS[i], ${FENCE_RETENTION_MS})
    end
  elseif op == 'I' then
    for i = k + 1, k + n do
      local c = redis.call('INCR', KEYS[i])
      redis.call('PEXPIRE', KEYS[i], ttl)
      if c > r then r = c end
    end
  elseif op == 'D' then
    if ours(k, n, token) == n then
      for i = k + 1, k + n do redis.call('SET', KEYS[i], '${DONE_MARKER}', 'PX', ttl) end
      r = 1
    end
  elseif op == 'P' then
    local pref, m = tonumber(extra), n - 1
    if redis.call('SET', KEYS[k + 1 + pref], token, 'NX', 'PX', ttl) then
      r = pref + 1
      counter(KEYS[k + n], ttl)
    else
      for j = 1, m - 1 do
        local s = (pref + j) % m
        if redis.call('EXISTS', KEYS[k + 1 + s]) == 0 then r = s + 1 break end
      end
    end
  elseif op == 'T' then
    if redis.pcall('GET', KEYS[k + 1]) == token then
      redis.call('PEXPIRE', KEYS[k + 1], ttl)
      counter(KEYS[k + 2], ttl)
      r = 1
    end
  elseif op == 'V' then
    if redis.pcall('GET', KEYS[k + 1]) == token then
      redis.call('DEL', KEYS[k + 1])
      if redis.pcall('INCR', KEYS[k + 2]) == 1 then redis.call('PEXPIRE', KEYS[k + 2], 60000) end
      r = 1
    end
  elseif op == 'r' then
    local now = clock()
    local z = KEYS[k + 1]
    if readers(z, now) and redis.call('EXISTS', KEYS[k + 2], KEYS[k + 3]) == 0 then
      redis.call('ZADD', z, now + tonumber(ttl), token)
      rearm(z, now)
      r = 1
    end
  elseif op == 'e' then
    local now = clock()
    local z = KEYS[k + 1]
    if readers(z, now) and redis.call('ZSCORE', z, token) then
      redis.call('ZADD', z, 'XX', now + tonumber(ttl), token)
      rearm(z, now)
      r = 1
    end
  elseif op == 'u' then
    local z = KEYS[k + 1]
    if readers(z, clock()) then r = redis.call('ZREM', z, token) end
  elseif op == 'G' then
    local m, q = n - 1, KEYS[k + n]
    local bypass, grace, id = string.match(extra, '^(%d+) (%d+) (.+)$')
    local free = true
    for i = k + 1, k + m do
      if redis.call('EXISTS', KEYS[i]) == 1 then free = false break end
    end
    local t = turn(q, id, tonumber(bypass), tonumber(grace), free)
    if t > 0 and free then
      for i = k + 1, k + m do redis.call('SET', KEYS[i], token, 'PX', ttl) end
      r = 1
    else
      -- Still in line (joined now, or first while the lock is held): the line lives a minute past
      -- its last caller, so a leadership longer than that keeps the order its campaigners came in.
      if t ~= 3 then
        r = t
        redis.call('ZADD', q, 'NX', micros(), id)
      end
      redis.call('PEXPIRE', q, 60000)
    end
  elseif op == 'H' then
    r = ours(k, n, extra)
    if r == n then
      for i = k + 1, k + n do redis.call('SET', KEYS[i], token, 'PX', ttl) end
    end
  elseif op == 'W' then
    local z, w, q = KEYS[k + 1], KEYS[k + 2], KEYS[k + 3]
    if readers(z, clock()) and redis.call('EXISTS', w) == 0 then
      if redis.call('EXISTS', z) == 0 then
        redis.call('SET', w, token, 'PX', ttl)
        redis.call('DEL', q)
        r = 1
      else
        redis.call('SET', q, '1', 'PX', extra)
      end
    end
  elseif op == 'Z' then
    r = 1
    for i = k + 1, k + n / 2 do
      local held = redis.pcall('GET', KEYS[i])
      r = r + redis.call('DEL', KEYS[i])
      if type(held) == 'table' then held = '' end
      if held then redis.call('SET', KEYS[i + n / 2], held .. '\\n' .. token, 'PX', ttl) end
    end
${ELECTION_OPS}
  elseif ours(k, n, '${DONE_MARKER}') == n then
    r = 1
  end
  out[#out + 1] = r
  k = k + n
end
return out`;

export const BATCH_SHA = createHash('sha1').update(BATCH_SCRIPT).digest('hex');

/** `EVALSHA sha numkeys key… (code[n] token [ttl])…` for ops[from, to). */
export function batchArgs(sha: string, ops: readonly OpArgs[], from: number, to: number): string[] {
  let keyCount = 0;
  let argCount = 0;
  for (let i = from; i < to; i++) {
    const op = ops[i]!;
    keyCount += op.keys.length;
    argCount += argsOf(op.opcode);
  }
  const args = new Array<string>(3 + keyCount + argCount);
  args[0] = 'EVALSHA';
  args[1] = sha;
  args[2] = String(keyCount);
  let k = 3;
  let a = 3 + keyCount;
  for (let i = from; i < to; i++) {
    const op = ops[i]!;
    const keys = op.keys;
    for (let j = 0; j < keys.length; j++) args[k++] = keys[j]!;
    args[a++] = keys.length === 1 ? op.opcode : op.opcode + String(keys.length);
    args[a++] = op.token;
    const count = argsOf(op.opcode);
    if (count > 2) args[a++] = op.ttlArg;
    if (count > 3) args[a++] = op.extra;
  }
  return args;
}
