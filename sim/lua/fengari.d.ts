/**
 * The part of fengari (a Lua 5.3 VM in JavaScript, npm `fengari`, which ships no types) that the
 * simulated master uses: its C API, function for function, with Lua strings as byte arrays.
 */
declare module 'fengari' {
  /** A Lua state (lua_State *). */
  export interface LuaState {
    readonly __luaState: never;
  }
  /** A Lua string: its bytes. */
  export type LuaString = Uint8Array;
  /** A lua_CFunction: takes its arguments from the stack, returns how many results it pushed. */
  export type LuaFunction = (L: LuaState) => number;

  export class lua_Debug {
    currentline: number;
    source: LuaString | null;
    what: LuaString | null;
  }

  export const lua: {
    readonly LUA_OK: number;
    readonly LUA_TNIL: number;
    readonly LUA_TBOOLEAN: number;
    readonly LUA_TNUMBER: number;
    readonly LUA_TSTRING: number;
    readonly LUA_TTABLE: number;
    readonly LUA_REGISTRYINDEX: number;
    readonly LUA_RIDX_GLOBALS: number;
    readonly LUA_MULTRET: number;
    lua_Debug: typeof lua_Debug;
    lua_atnativeerror(L: LuaState, handler: LuaFunction): void;
    lua_call(L: LuaState, nargs: number, nresults: number): void;
    lua_concat(L: LuaState, n: number): void;
    lua_createtable(L: LuaState, narr: number, nrec: number): void;
    lua_error(L: LuaState): never;
    lua_getfield(L: LuaState, index: number, key: LuaString | string): number;
    lua_getglobal(L: LuaState, name: LuaString | string): number;
    lua_getinfo(L: LuaState, what: LuaString | string, ar: lua_Debug): number;
    lua_getstack(L: LuaState, level: number, ar: lua_Debug): number;
    lua_gettop(L: LuaState): number;
    lua_pcall(L: LuaState, nargs: number, nresults: number, msgh: number): number;
    lua_pop(L: LuaState, n: number): void;
    lua_pushboolean(L: LuaState, value: boolean): void;
    lua_pushcclosure(L: LuaState, fn: LuaFunction, nup: number): void;
    lua_pushcfunction(L: LuaState, fn: LuaFunction): void;
    lua_pushnil(L: LuaState): void;
    lua_pushnumber(L: LuaState, value: number): void;
    lua_pushstring(L: LuaState, value: LuaString | string): LuaString;
    lua_pushvalue(L: LuaState, index: number): void;
    lua_rawequal(L: LuaState, a: number, b: number): boolean;
    lua_rawget(L: LuaState, index: number): number;
    lua_rawgeti(L: LuaState, index: number, n: number): number;
    lua_rawset(L: LuaState, index: number): void;
    lua_rawseti(L: LuaState, index: number, n: number): void;
    lua_setfield(L: LuaState, index: number, key: LuaString | string): void;
    lua_setglobal(L: LuaState, name: LuaString | string): void;
    lua_setmetatable(L: LuaState, index: number): void;
    lua_settop(L: LuaState, index: number): void;
    lua_toboolean(L: LuaState, index: number): boolean;
    lua_tolstring(L: LuaState, index: number): LuaString | null;
    lua_tonumber(L: LuaState, index: number): number;
    lua_touserdata(L: LuaState, index: number): unknown;
    lua_type(L: LuaState, index: number): number;
    lua_upvalueindex(n: number): number;
  };

  export const lauxlib: {
    luaL_argerror(L: LuaState, arg: number, message: LuaString | string): never;
    luaL_checknumber(L: LuaState, arg: number): number;
    luaL_typename(L: LuaState, index: number): LuaString;
    luaL_loadbuffer(L: LuaState, buffer: LuaString, size: number, name: LuaString | string): number;
    luaL_newstate(): LuaState;
    luaL_ref(L: LuaState, t: number): number;
    luaL_requiref(L: LuaState, name: LuaString | string, open: LuaFunction, global: number): void;
    luaL_tolstring(L: LuaState, index: number): LuaString;
    luaL_where(L: LuaState, level: number): void;
  };

  export const lualib: {
    luaopen_base: LuaFunction;
    luaopen_math: LuaFunction;
    luaopen_string: LuaFunction;
    luaopen_table: LuaFunction;
  };
}

/** fengari's object module: the number ↔ string conversions its lexer, VM and API call through it. */
declare module 'fengari/src/lobject.js' {
  import type { LuaState, LuaString } from 'fengari';

  export interface TValue {
    value: unknown;
    ttisinteger(): boolean;
    ttisnil(): boolean;
    ttisnumber(): boolean;
    setivalue(value: number): void;
    setnilvalue(): void;
    setfrom(other: TValue): void;
    setfltvalue(value: number): void;
    setsvalue(value: unknown): void;
  }

  const lobject: {
    /** Pushes a string object (a TString) without copying its bytes. */
    pushsvalue2s(L: LuaState, ts: unknown): void;
    /** Reads a numeral into `o`: the numeral's length + 1, or 0 when `s` is not one. */
    luaO_str2num(s: LuaString, o: TValue): number;
    /** Replaces the number in `obj` by its string. */
    luaO_tostring(L: LuaState, obj: TValue): void;
  };
  export default lobject;
}

declare module 'fengari/src/lstring.js' {
  import type { LuaState, LuaString } from 'fengari';

  const lstring: {
    luaS_bless(L: LuaState, bytes: LuaString): unknown;
  };
  export default lstring;
}

declare module 'fengari/src/ltable.js' {
  import type { LuaState } from 'fengari';
  import type { TValue } from 'fengari/src/lobject.js';

  /** A Lua table's JavaScript object. */
  export interface Table {
    readonly __table: never;
  }
  interface State extends LuaState {
    readonly stack: TValue[];
  }

  const ltable: {
    luaH_getint(t: Table, key: number): TValue;
    luaH_getn(t: Table): number;
    /** Advances the key at stack[keyI] (and its value at keyI + 1); false past the last. */
    luaH_next(L: State, t: Table, keyI: number): boolean;
  };
  export default ltable;
}
