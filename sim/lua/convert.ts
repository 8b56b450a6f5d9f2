/**
 * Redis 7.0's conversions between command replies and Lua values (script_lua.c), RESP2 as a
 * script sees replies: integer → number, bulk → string, null → false, status → {ok=…},
 * error → {err=…}, array → table. And back, for what a script returns: number → integer
 * (truncated), string → bulk, true → 1, false and nil → null, {err=…} → error, {ok=…} → status,
 * any other table → array up to its first nil.
 */
import { lua, type LuaState } from 'fengari';
import { toLongLong } from '../master/numbers.js';
import { Fail, Status, type Value } from '../master/reply.js';
import { fromLua, pushString } from './strings.js';


export function pushValue(L: LuaState, value: Value): void {
  if (typeof value === 'string') {
    pushString(L, value);
  } else if (typeof value === 'number') {
    // A float, as every 5.1 number is (see compat.ts).
    lua.lua_pushnumber(L, value);
  } else if (value === null) {
    lua.lua_pushboolean(L, false);
  } else if (value instanceof Status) {
    pushField(L, 'ok', value.text);
  } else if (value instanceof Fail) {
    pushField(L, 'err', value.message);
  } else {
    lua.lua_createtable(L, value.length, 0);
    for (let i = 0; i < value.length; i++) {
      pushValue(L, value[i]!);
      lua.lua_rawseti(L, -2, i + 1);
    }
  }
}

/** A table with one string field: {ok=…} or {err=…}. */
export function pushField(L: LuaState, name: string, text: string): void {
  lua.lua_createtable(L, 0, 1);
  pushString(L, name);
  pushString(L, text);
  lua.lua_rawset(L, -3);
}

/** The string field `name` of the table at `index`, or undefined. */
export function stringField(L: LuaState, index: number, name: string): string | undefined {
  pushString(L, name);
  const type = lua.lua_rawget(L, index < 0 ? index - 1 : index);
  const text = type === lua.LUA_TSTRING ? fromLua(lua.lua_tolstring(L, -1)!) : undefined;
  lua.lua_pop(L, 1);
  return text;
}

/** Redis's error and status texts go out on one line: trailing CR/LF trimmed, the others spaces. */
export function oneLine(text: string): string {
  return text.replace(/[\r\n]+$/, '').replace(/[\r\n]/g, ' ');
}

/** What the script's result at absolute `index` replies. */
export function readValue(L: LuaState, index: number): Value {
  switch (lua.lua_type(L, index)) {
    case lua.LUA_TSTRING:
      return fromLua(lua.lua_tolstring(L, index)!);
    case lua.LUA_TBOOLEAN:
      return lua.lua_toboolean(L, index) ? 1 : null;
    case lua.LUA_TNUMBER:
      return toLongLong(lua.lua_tonumber(L, index));
    case lua.LUA_TTABLE: {
      const err = stringField(L, index, 'err');
      if (err !== undefined) return new Fail(oneLine(err));
      const ok = stringField(L, index, 'ok');
      if (ok !== undefined) return new Status(ok.replace(/[\r\n]/g, ' '));
      const out: Value[] = [];
      for (let j = 1; lua.lua_rawgeti(L, index, j) !== lua.LUA_TNIL; j++) {
        out.push(readValue(L, lua.lua_gettop(L)));
        lua.lua_pop(L, 1);
      }
      lua.lua_pop(L, 1);
      return out;
    }
    default:
      return null;
  }
}
