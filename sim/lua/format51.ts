/**
 * Lua 5.1's string.format (lstrlib.c str_format), for scripts in fengari's 5.3.
 *
 * The differences it removes: 5.3 wants an integer representation for %d %i %o %u %x %X %c
 * (fengari's are 32-bit, so `string.format('%d', c)` of a µs clock fails), prints a float as
 * "3.0" for %s, quotes control characters differently with %q, and reads width and precision
 * without 5.1's two-digit limit; and fengari's %e %f %g are not C's (sprintf-js rounds 2.5 up and
 * prints 1.2345678e+4), so floats go to a printf of their own (sim/master/printf.ts).
 */
import { lauxlib, lua, type LuaFunction, type LuaState, type LuaString } from 'fengari';
import { formatG, toLongLong } from '../master/numbers.js';
import { printfFloat } from '../master/printf.js';
import { parseNumber51 } from './vm51.js';
import { fromLua, toLua } from './strings.js';

const kPercent = 37;
const kFlags = '-+ #0';

/** luaL_error: the message after the position of the Lua code that called format. */
function raise(L: LuaState, message: string): never {
  lauxlib.luaL_where(L, 1);
  lua.lua_pushstring(L, toLua(message));
  lua.lua_concat(L, 2);
  return lua.lua_error(L);
}

function typeError(L: LuaState, arg: number, expected: string): never {
  return lauxlib.luaL_argerror(L, arg, `${expected} expected, got ${fromLua(lauxlib.luaL_typename(L, arg))}`);
}

/** luaL_checknumber as 5.1 has it: a number, or a string 5.1 reads as one. */
function checkNumber(L: LuaState, arg: number): number {
  const type = lua.lua_type(L, arg);
  if (type === lua.LUA_TNUMBER) return lua.lua_tonumber(L, arg);
  if (type === lua.LUA_TSTRING) {
    const value = parseNumber51(fromLua(lua.lua_tolstring(L, arg)!));
    if (value !== undefined) return value;
  }
  return typeError(L, arg, 'number');
}

/** luaL_checklstring as 5.1 has it: a string, or a number printed with %.14g. */
function checkString(L: LuaState, arg: number): LuaString {
  const type = lua.lua_type(L, arg);
  if (type === lua.LUA_TSTRING) return lua.lua_tolstring(L, arg)!;
  if (type === lua.LUA_TNUMBER) return toLua(formatG(lua.lua_tonumber(L, arg), 14));
  return typeError(L, arg, 'string');
}

export const format51: LuaFunction = (L) => {
  const top = lua.lua_gettop(L);
  const spec = checkString(L, 1);
  const parts: LuaString[] = [];
  let literal = 0;
  let arg = 1;
  let i = 0;
  while (i < spec.length) {
    if (spec[i] !== kPercent) {
      i++;
      continue;
    }
    parts.push(spec.subarray(literal, i));
    if (spec[i + 1] === kPercent) {
      parts.push(toLua('%'));
      i += 2;
      literal = i;
      continue;
    }
    let at = i + 1;
    const text = (from: number, to: number): string => fromLua(spec.subarray(from, to));
    while (at < spec.length && kFlags.includes(String.fromCharCode(spec[at]!))) at++;
    if (at - (i + 1) > kFlags.length) raise(L, 'invalid format (repeated flags)');
    const flags = text(i + 1, at);
    const digits = (): string => {
      const start = at;
      while (at < spec.length && at - start < 3 && spec[at]! >= 48 && spec[at]! <= 57) at++;
      if (at - start > 2) raise(L, 'invalid format (width or precision too long)');
      return text(start, at);
    };
    const width = digits();
    let precision: string | undefined;
    if (spec[at] === 46) {
      at++;
      precision = digits();
    }
    const conversion = text(at, at + 1);
    i = at + 1;
    literal = i;
    if (++arg > top) lauxlib.luaL_argerror(L, arg, 'no value');
    parts.push(convert(L, arg, conversion, flags, width, precision));
  }
  parts.push(spec.subarray(literal));
  return pushJoined(L, parts);
};

function convert(L: LuaState, arg: number, conversion: string, flags: string, width: string, precision: string | undefined): LuaString {
  switch (conversion) {
    case 'd':
    case 'i':
    case 'o':
    case 'u':
    case 'x':
    case 'X':
      return toLua(formatInteger(BigInt(toLongLong(checkNumber(L, arg))), conversion, flags, width, precision));
    case 'c':
      return padBytes(Uint8Array.of(Number(BigInt.asUintN(8, BigInt(toLongLong(checkNumber(L, arg)))))), flags, width);
    case 'e':
    case 'E':
    case 'f':
    case 'g':
    case 'G':
      return toLua(printfFloat(checkNumber(L, arg), conversion, flags, Number(width || '0'), precision === undefined ? 6 : Number(precision || '0')));
    case 'q':
      return quote(checkString(L, arg));
    case 's': {
      const bytes = checkString(L, arg);
      // 5.1 keeps a long string whole when no precision is given (it would not fit its buffer).
      if (precision === undefined && bytes.length >= 100) return bytes;
      return padBytes(precision === undefined ? bytes : bytes.subarray(0, Number(precision || '0')), flags, width);
    }
    default:
      return raise(L, `invalid option '%${conversion}' to 'format'`);
  }
}

/** 5.1's %q: quotes, backslash before '"', '\\' and newline, \r as \r, NUL as \000. */
function quote(bytes: LuaString): LuaString {
  const out: number[] = [34];
  for (const byte of bytes) {
    if (byte === 34 || byte === 92 || byte === 10) out.push(92, byte);
    else if (byte === 13) out.push(92, 114);
    else if (byte === 0) out.push(92, 48, 48, 48);
    else out.push(byte);
  }
  out.push(34);
  return Uint8Array.from(out);
}

function padBytes(bytes: LuaString, flags: string, width: string): LuaString {
  const size = Number(width || '0');
  if (bytes.length >= size) return bytes;
  const out = new Uint8Array(size).fill(32);
  out.set(bytes, flags.includes('-') ? 0 : size - bytes.length);
  return out;
}

function pushJoined(L: LuaState, parts: readonly LuaString[]): number {
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  lua.lua_pushstring(L, out);
  return 1;
}

/** C's printf of a 64-bit integer (%d %i signed; %o %u %x %X of its two's complement). */
export function formatInteger(value: bigint, conversion: string, flags: string, width: string, precision: string | undefined): string {
  const signed = conversion === 'd' || conversion === 'i';
  const magnitude = signed ? (value < 0n ? -value : value) : BigInt.asUintN(64, value);
  const radix = conversion === 'o' ? 8 : conversion === 'x' || conversion === 'X' ? 16 : 10;
  let digits = magnitude.toString(radix);
  if (conversion === 'X') digits = digits.toUpperCase();
  if (precision !== undefined) digits = Number(precision || '0') === 0 && magnitude === 0n ? '' : digits.padStart(Number(precision || '0'), '0');
  let prefix = '';
  if (signed) prefix = value < 0n ? '-' : flags.includes('+') ? '+' : flags.includes(' ') ? ' ' : '';
  else if (flags.includes('#') && conversion === 'o' && !digits.startsWith('0')) digits = `0${digits}`;
  else if (flags.includes('#') && radix === 16 && magnitude !== 0n) prefix = conversion === 'X' ? '0X' : '0x';
  const size = Number(width || '0');
  if (flags.includes('0') && !flags.includes('-') && precision === undefined) return prefix + digits.padStart(size - prefix.length, '0');
  const text = prefix + digits;
  return flags.includes('-') ? text.padEnd(size) : text.padStart(size);
}
