import { createHash } from 'node:crypto';

/** Operation codes in the batch script's ARGV. */
export const OP_ACQUIRE = 'A';
export const OP_EXTEND = 'E';
export const OP_RELEASE = 'R';
export type OpCode = typeof OP_ACQUIRE | typeof OP_EXTEND | typeof OP_RELEASE;

/**
 * One script for every per-key operation, so the operations of many locks issued in one tick
 * travel to a master as one EVALSHA and run there back to back. ARGV holds a 4-tuple per
 * operation (code, key count, token, ttl ms); KEYS holds each operation's keys in the same order.
 * The reply is one integer per operation:
 *   A: all keys set (count) or none (0) — all-or-nothing, so a multi-resource lock never half-forms
 *      (one key: a single SET NX, the cheapest form);
 *   E: all keys still ours and re-armed (count) or none touched (0);
 *   R: how many keys were ours and deleted.
 * GET runs under pcall so a foreign key of another type counts as "not ours" instead of raising,
 * which would fail every other lock coalesced into the same call.
 */
export const BATCH_SCRIPT = `local out = {}
local k = 0
for a = 1, #ARGV, 4 do
  local op, n, token = ARGV[a], tonumber(ARGV[a + 1]), ARGV[a + 2]
  local r = 0
  if op == 'A' then
    if n == 1 then
      if redis.call('SET', KEYS[k + 1], token, 'NX', 'PX', ARGV[a + 3]) then r = 1 end
    else
      r = n
      for i = k + 1, k + n do
        if redis.call('EXISTS', KEYS[i]) == 1 then r = 0 break end
      end
      if r == n then
        for i = k + 1, k + n do redis.call('SET', KEYS[i], token, 'PX', ARGV[a + 3]) end
      end
    end
  elseif op == 'E' then
    r = n
    for i = k + 1, k + n do
      if redis.pcall('GET', KEYS[i]) ~= token then r = 0 break end
    end
    if r == n then
      for i = k + 1, k + n do redis.call('PEXPIRE', KEYS[i], ARGV[a + 3]) end
    end
  else
    for i = k + 1, k + n do
      if redis.pcall('GET', KEYS[i]) == token then
        redis.call('DEL', KEYS[i])
        r = r + 1
      end
    end
  end
  out[#out + 1] = r
  k = k + n
end
return out`;

export const BATCH_SHA = createHash('sha1').update(BATCH_SCRIPT).digest('hex');

/** What the coalescer needs of one operation to put it into a call. */
export interface OpArgs {
  readonly opcode: OpCode;
  readonly keys: readonly string[];
  readonly token: string;
  /** PX / PEXPIRE argument in ms, already a string; '0' for release. */
  readonly ttlArg: string;
}

/** `EVALSHA sha numkeys key… (op n token ttl)…` for ops[from, to). */
export function batchArgs(sha: string, ops: readonly OpArgs[], from: number, to: number): string[] {
  let keyCount = 0;
  for (let i = from; i < to; i++) keyCount += ops[i]!.keys.length;
  const args = new Array<string>(3 + keyCount + 4 * (to - from));
  args[0] = 'EVALSHA';
  args[1] = sha;
  args[2] = String(keyCount);
  let k = 3;
  let a = 3 + keyCount;
  for (let i = from; i < to; i++) {
    const op = ops[i]!;
    const keys = op.keys;
    for (let j = 0; j < keys.length; j++) args[k++] = keys[j]!;
    args[a++] = op.opcode;
    args[a++] = String(keys.length);
    args[a++] = op.token;
    args[a++] = op.ttlArg;
  }
  return args;
}

/**
 * A lone single-key acquisition goes out as the plain `SET key token NX PX ttl`: at low
 * concurrency there is nothing to coalesce, and SET is cheaper for Redis than a script call.
 */
export function setNxArgs(key: string, token: string, ttlArg: string): string[] {
  return ['SET', key, token, 'NX', 'PX', ttlArg];
}

export function scriptLoadArgs(): string[] {
  return ['SCRIPT', 'LOAD', BATCH_SCRIPT];
}
