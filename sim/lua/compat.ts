/**
 * Lua 5.1 as Redis 7.0 runs it, on fengari's Lua 5.3: the library functions whose behaviour a
 * script could tell apart. Numbers are doubles throughout (vm51.ts, which also makes
 * tonumber 5.1's); tostring prints them with %.14g; string.format is 5.1's (format51.ts); error()
 * puts the position before a number message too; unpack is the global it was in 5.1; loaders
 * and math.random (Redis seeds it per call; nothing here needs it) are gone; globals are
 * protected as Redis 7.0 protects them; runtime errors read in 5.1's words (message51).
 */
import { lauxlib, lua, type LuaFunction, type LuaState } from 'fengari';
import { formatG } from '../master/numbers.js';
import { format51 } from './format51.js';
import './vm51.js';
import { fromLua, toLua } from './strings.js';

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

/** Lua 5.1's error(): a number message gets the position too (5.3 adds it to strings only). */
const error51: LuaFunction = (L) => {
  const level = lua.lua_type(L, 2) === lua.LUA_TNUMBER ? lua.lua_tonumber(L, 2) : 1;
  lua.lua_settop(L, 1);
  const type = lua.lua_type(L, 1);
  if ((type === lua.LUA_TSTRING || type === lua.LUA_TNUMBER) && level > 0) {
    lauxlib.luaL_where(L, level);
    lua.lua_pushvalue(L, 1);
    lua.lua_concat(L, 2);
  }
  return lua.lua_error(L);
};

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

/**
 * rawset and setmetatable (upvalue 1: 5.3's), refused on the globals table, which Redis 7.0 makes
 * read-only below the metatable (its error names no position, as a C function's does not).
 */
const guarded: LuaFunction = (L) => {
  lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, lua.LUA_RIDX_GLOBALS);
  const globals = lua.lua_rawequal(L, 1, -1);
  lua.lua_pop(L, 1);
  if (globals) {
    lua.lua_pushstring(L, toLua('Attempt to modify a readonly table'));
    return lua.lua_error(L);
  }
  const top = lua.lua_gettop(L);
  lua.lua_pushvalue(L, lua.lua_upvalueindex(1));
  for (let i = 1; i <= top; i++) lua.lua_pushvalue(L, i);
  lua.lua_call(L, top, 1);
  return 1;
};

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
  wrap(L, '_G', 'tostring', tostring);
  wrap(L, '_G', 'rawset', guarded);
  wrap(L, '_G', 'setmetatable', guarded);
  lua.lua_getglobal(L, 'string');
  lua.lua_pushcfunction(L, format51);
  lua.lua_setfield(L, -2, 'format');
  lua.lua_pop(L, 1);
  lua.lua_pushcfunction(L, error51);
  lua.lua_setglobal(L, 'error');
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
