import { createHash } from 'node:crypto';
import { OP_ACQUIRE, OP_EXTEND, OP_RELEASE } from './opcodes.js';
import { type OpArgs } from './opcodes.js';

/**
 * The script for the calls nearly every lock makes: single-key acquire (A), extend (E) and release
 * (R) whose acquires and extends share one ttl. KEYS holds one key per operation; ARGV one token per
 * operation, then the shape — the operation code when every operation has it, else one code per
 * operation ('AARE…', run in that order) — then the ttl (absent when there are only releases).
 * The reply, per operation as BATCH_SCRIPT's for single keys: A 1 if set (SET NX PX) else 0;
 * E 1 if the key held the token and was re-armed (PEXPIRE) else 0; R 1 if it held the token and was
 * deleted else 0. When every operation answered 1 the reply is the integer n instead of n ones.
 *
 * Why a second script: in BATCH_SCRIPT each operation pays for its generality — an op code, a ttl
 * and spare arguments parsed from ARGV and pushed into Lua as strings, string compares to find its
 * branch, a loop per key, a reply array: about a third more instructions per cycle on the server
 * (docs/decisions/0001-script-shapes.md). What is left is mostly the three redis.call of a cycle, each converting its arguments,
 * looking the command up and converting its reply back into Lua (redis.io/docs/latest/develop/interact/programmability/lua-api,
 * "Data type conversion"). GET runs under pcall so a key of another type counts as "not ours"
 * instead of failing every other operation of the call.
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

/**
 * Most operations of a mixed call: the script unpacks the shape's bytes in one `string.byte`, and
 * Lua 5.1 refuses more results than its C stack holds (LUAI_MAXCSTACK, 8000). Larger mixed chunks
 * (chunkSize above this) go to BATCH_SCRIPT.
 */
const kMixedMax = 4096;

/**
 * `EVALSHA LEAN_SHA n key… token… shape [ttl]` for ops[from, to), or undefined when one of them is
 * not a single-key A, E or R, or the acquires and extends do not share one ttl.
 */
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
