/**
 * Lua 5.1 as Redis runs it, on fengari's Lua 5.3, for what scripts see of numbers.
 *
 * 5.1 has one number type, a double; 5.3 splits integers from floats, and fengari's integers are
 * 32-bit. So every number that enters a script from outside (tonumber, Redis replies) is a float:
 * arithmetic on them stays in doubles, as in 5.1, and never wraps at 2^31. What 5.3 prints or
 * formats differently is replaced: tostring and string.format print numbers as 5.1 does (%.14g,
 * and %d of any double), tonumber parses as 5.1's strtod does (hex, "inf", "nan", spaces).
 * Unpack is the global it was in 5.1, and globals are protected as Redis 7.0 protects them.
 */
import { lauxlib, lua, type LuaFunction, type LuaState, type LuaString } from 'fengari';
import { formatG, strtod, toLongLong } from '../master/numbers.js';
import { fromLua, toLua } from './strings.js';

/** Lua 5.1's tonumber(s) on a string: strtod over the whole of it but trailing spaces. */
export function parseNumber51(text: string): number | undefined {
  const end = text.indexOf('\0');
  const body = end < 0 ? text : text.slice(0, end);
  const read = strtod(body);
  if (read.end === 0) return undefined;
  return /^[ \t\n\v\f\r]*$/.test(body.slice(read.end)) ? read.value : undefined;
}

const tonumber: LuaFunction = (L) => {
  if (lua.lua_gettop(L) >= 2 && lua.lua_type(L, 2) !== lua.LUA_TNIL) {
    // With a base, 5.3's own (the same digits rule) answers.
    lua.lua_pushvalue(L, lua.lua_upvalueindex(1));
    lua.lua_pushvalue(L, 1);
    lua.lua_pushvalue(L, 2);
    lua.lua_call(L, 2, 1);
    return 1;
  }
  const type = lua.lua_type(L, 1);
  if (type === lua.LUA_TNUMBER) {
    lua.lua_pushnumber(L, lua.lua_tonumber(L, 1));
  } else if (type === lua.LUA_TSTRING) {
    const value = parseNumber51(fromLua(lua.lua_tolstring(L, 1)!));
    if (value === undefined) lua.lua_pushnil(L);
    else lua.lua_pushnumber(L, value);
  } else {
    if (lua.lua_gettop(L) === 0) return raise(L, "bad argument #1 to 'tonumber' (value expected)");
    lua.lua_pushnil(L);
  }
  return 1;
};

const tostring: LuaFunction = (L) => {
  if (lua.lua_type(L, 1) === lua.LUA_TNUMBER) {
    lua.lua_pushstring(L, toLua(formatG(lua.lua_tonumber(L, 1), 14)));
    return 1;
  }
  lua.lua_pushvalue(L, lua.lua_upvalueindex(1));
  lua.lua_pushvalue(L, 1);
  lua.lua_call(L, 1, 1);
  return 1;
};

function raise(L: LuaState, message: string): never {
  lua.lua_pushstring(L, toLua(message));
  return lua.lua_error(L);
}

const kPercent = 37;
const kSpec = /^([-+ #0]*)(\d*)(?:\.(\d*))?([a-zA-Z%])/;

/**
 * string.format with 5.1's integer conversions: %d %i of any double truncated to 64 bits, %o %u
 * %x %X of it as unsigned (5.3 wants an integer representation, and fengari's are 32-bit), %s and
 * %q of a number as %.14g. Every other conversion is 5.3's own, one spec at a time.
 */
const format: LuaFunction = (L) => {
  const spec = lua.lua_tolstring(L, 1);
  if (spec === null) return raise(L, "bad argument #1 to 'format' (string expected, got no value)");
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
    const match = kSpec.exec(fromLua(spec.subarray(i + 1, i + 12)));
    if (match === null) return delegate(L, spec.subarray(i), arg + 1, parts);
    const [whole, flags = '', width = '', precision, conversion = ''] = match;
    i += 1 + whole.length;
    literal = i;
    if (conversion === '%') {
      parts.push(toLua('%'));
      continue;
    }
    arg++;
    if ('diouxX'.includes(conversion)) {
      const value = BigInt(toLongLong(lauxlib.luaL_checknumber(L, arg)));
      parts.push(toLua(formatInteger(value, conversion, flags, width, precision)));
    } else if ((conversion === 's' || conversion === 'q') && lua.lua_type(L, arg) === lua.LUA_TNUMBER) {
      const text = formatG(lua.lua_tonumber(L, arg), 14);
      parts.push(toLua(conversion === 'q' ? text : pad(precision === undefined ? text : text.slice(0, Number(precision)), flags, width)));
    } else {
      delegateOne(L, `%${flags}${width}${precision === undefined ? '' : `.${precision}`}${conversion}`, arg, parts);
    }
  }
  parts.push(spec.subarray(literal));
  return pushJoined(L, parts);
};

/** One conversion by 5.3's string.format (upvalue 1). */
function delegateOne(L: LuaState, spec: string, arg: number, parts: LuaString[]): void {
  lua.lua_pushvalue(L, lua.lua_upvalueindex(1));
  lua.lua_pushstring(L, toLua(spec));
  lua.lua_pushvalue(L, arg);
  lua.lua_call(L, 2, 1);
  parts.push(Uint8Array.from(lua.lua_tolstring(L, -1)!));
  lua.lua_pop(L, 1);
}

/** A spec this parser does not read: 5.3 formats (or rejects) the rest, with the rest of the arguments. */
function delegate(L: LuaState, rest: LuaString, firstArg: number, parts: LuaString[]): number {
  const top = lua.lua_gettop(L);
  lua.lua_pushvalue(L, lua.lua_upvalueindex(1));
  lua.lua_pushstring(L, rest);
  for (let a = firstArg; a <= top; a++) lua.lua_pushvalue(L, a);
  lua.lua_call(L, 1 + Math.max(0, top - firstArg + 1), 1);
  parts.push(Uint8Array.from(lua.lua_tolstring(L, -1)!));
  lua.lua_pop(L, 1);
  return pushJoined(L, parts);
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

/** C's printf of a 64-bit integer. */
export function formatInteger(value: bigint, conversion: string, flags: string, width: string, precision: string | undefined): string {
  const signed = conversion === 'd' || conversion === 'i';
  const unsigned = value < 0n && !signed ? value + 2n ** 64n : value;
  const radix = conversion === 'o' ? 8 : conversion === 'x' || conversion === 'X' ? 16 : 10;
  let digits = (unsigned < 0n ? -unsigned : unsigned).toString(radix);
  if (conversion === 'X') digits = digits.toUpperCase();
  if (precision !== undefined) digits = Number(precision) === 0 && unsigned === 0n ? '' : digits.padStart(Number(precision), '0');
  let prefix = '';
  if (signed) prefix = unsigned < 0n ? '-' : flags.includes('+') ? '+' : flags.includes(' ') ? ' ' : '';
  else if (flags.includes('#') && conversion === 'o' && !digits.startsWith('0')) digits = `0${digits}`;
  else if (flags.includes('#') && radix === 16 && unsigned !== 0n) prefix = conversion === 'X' ? '0X' : '0x';
  const size = Number(width || '0');
  if (flags.includes('0') && !flags.includes('-') && precision === undefined) return prefix + digits.padStart(size - prefix.length, '0');
  return pad(prefix + digits, flags, width);
}

function pad(text: string, flags: string, width: string): string {
  const size = Number(width || '0');
  return flags.includes('-') ? text.padEnd(size) : text.padStart(size);
}

/** Replaces `name` in table `table` (at the top) by `fn`, whose upvalue 1 is the 5.3 original. */
function wrap(L: LuaState, table: string, name: string, fn: LuaFunction): void {
  lua.lua_getglobal(L, table);
  lua.lua_getfield(L, -1, name);
  lua.lua_pushcclosure(L, fn, 1);
  lua.lua_setfield(L, -2, name);
  lua.lua_pop(L, 1);
}

/**
 * Redis 7.0 refuses to read an undefined global and to set any: raised from JS (a C function to
 * Lua) so that the error names the script's line, as Redis's read-only globals table does.
 */
const readGlobal: LuaFunction = (L) => {
  const name = lua.lua_type(L, 2) === lua.LUA_TSTRING ? fromLua(lua.lua_tolstring(L, 2)!) : '?';
  return raiseAt(L, `Script attempted to access nonexistent global variable '${name}'`);
};
const writeGlobal: LuaFunction = (L) => raiseAt(L, 'Attempt to modify a readonly table');

/** luaL_error: the message after the position of the Lua function that called the one raising. */
function raiseAt(L: LuaState, message: string): never {
  lauxlib.luaL_where(L, 1);
  lua.lua_pushstring(L, toLua(message));
  lua.lua_concat(L, 2);
  return lua.lua_error(L);
}

const kCleanup = `unpack = table.unpack
dofile, loadfile, load, require = nil, nil, nil, nil
math.random, math.randomseed = nil, nil`;

/**
 * Lua 5.3's wording of a runtime error in 5.1's: "attempt to index a nil value (local 't')" is
 * "attempt to index local 't' (a nil value)" in the Lua that Redis runs.
 */
export function message51(message: string): string {
  return message.replace(/attempt to (.+?) a (\w+) value \((\w+) '([^']*)'\)/, "attempt to $1 $3 '$4' (a $2 value)");
}

/** Installs the 5.1 replacements and Redis's global protection; `setup` runs first, while globals can still be set. */
export function install51(L: LuaState, setup: () => void): void {
  wrap(L, '_G', 'tonumber', tonumber);
  wrap(L, '_G', 'tostring', tostring);
  wrap(L, 'string', 'format', format);
  setup();
  const source = toLua(kCleanup);
  if (lauxlib.luaL_loadbuffer(L, source, source.length, '=compat') !== lua.LUA_OK) throw new Error(fromLua(lua.lua_tolstring(L, -1)!));
  lua.lua_call(L, 0, 0);
  lua.lua_getglobal(L, '_G');
  lua.lua_createtable(L, 0, 2);
  lua.lua_pushcfunction(L, readGlobal);
  lua.lua_setfield(L, -2, '__index');
  lua.lua_pushcfunction(L, writeGlobal);
  lua.lua_setfield(L, -2, '__newindex');
  lua.lua_setmetatable(L, -2);
  lua.lua_pop(L, 1);
}
