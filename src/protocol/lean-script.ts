import { createHash } from 'node:crypto';
import { OP_ACQUIRE, OP_EXTEND, OP_RELEASE } from './opcodes.js';
import { type OpArgs } from './opcodes.js';

/**
 * The script for the calls nearly every lock makes: single-key acquire (A), extend (E) and release (R) sharing one
 * ttl. KEYS one key per operation; ARGV one token per operation, the shape (one code, or one per operation), the ttl.
 * Replies as BATCH_SCRIPT's per operation, or the integer n when all answered 1. Why a second script:
 * docs/decisions/0001-script-shapes.md.
 */
export const LEAN_SCRIPT = `local call, pcall, keys, argv = redis.call, redis.pcall, KEYS, ARGV
local n = #keys
local shape, ttl = argv[n + 1], argv[n + 2]
local out, ones = {}, 0
if shape == 'A' then
  for i = 1, n do
    if call('SET', keys[i], argv[i], 'NX', 'PX', ttl) then out[i] = 1 ones = ones + 1 else out[i] = 0 end
  end
elseif shape == 'R' then
  for i = 1, n do
    local key = keys[i]
    if pcall('GET', key) == argv[i] then call('DEL', key) out[i] = 1 ones = ones + 1 else out[i] = 0 end
  end
elseif shape == 'E' then
  for i = 1, n do
    local key = keys[i]
    if pcall('GET', key) == argv[i] then call('PEXPIRE', key, ttl) out[i] = 1 ones = ones + 1 else out[i] = 0 end
  end
else
  local codes = {string.byte(shape, 1, n)}
  for i = 1, n do
    local code, key = codes[i], keys[i]
    if code == 65 then
      if call('SET', key, argv[i], 'NX', 'PX', ttl) then out[i] = 1 ones = ones + 1 else out[i] = 0 end
    elseif pcall('GET', key) == argv[i] then
      if code == 82 then call('DEL', key) else call('PEXPIRE', key, ttl) end
      out[i] = 1
      ones = ones + 1
    else
      out[i] = 0
    end
  end
end
if ones == n then return n end
return out`;

export const LEAN_SHA = createHash('sha1').update(LEAN_SCRIPT).digest('hex');

/** Most operations of a mixed call: one `string.byte` returns at most LUAI_MAXCSTACK (8000); larger go to BATCH_SCRIPT. */
const kMixedMax = 4096;

/** `EVALSHA LEAN_SHA n key… token… shape [ttl]` for ops[from, to), or undefined when they do not fit LEAN_SCRIPT. */
export function leanArgs(ops: readonly OpArgs[], from: number, to: number): string[] | undefined {
  const kind = ops[from]!.opcode;
  let same = true;
  let ttl: string | undefined;
  for (let i = from; i < to; i++) {
    const op = ops[i]!;
    const code = op.opcode;
    if (op.keys.length !== 1) return undefined;
    if (code === OP_ACQUIRE || code === OP_EXTEND) {
      if (ttl === undefined) ttl = op.ttlArg;
      else if (op.ttlArg !== ttl) return undefined;
    } else if (code !== OP_RELEASE) {
      return undefined;
    }
    if (code !== kind) same = false;
  }
  const n = to - from;
  if (!same && n > kMixedMax) return undefined;
  const args = new Array<string>(4 + 2 * n + (ttl === undefined ? 0 : 1));
  args[0] = 'EVALSHA';
  args[1] = LEAN_SHA;
  args[2] = String(n);
  let shape = same ? kind : '';
  for (let i = 0; i < n; i++) {
    const op = ops[from + i]!;
    args[3 + i] = op.keys[0]!;
    args[3 + n + i] = op.token;
    if (!same) shape += op.opcode;
  }
  args[3 + 2 * n] = shape;
  if (ttl !== undefined) args[4 + 2 * n] = ttl;
  return args;
}
