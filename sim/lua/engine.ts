/**
 * The Lua interpreter that runs scripts for every simulated master of a process: pipelock's real
 * Lua, on fengari (Lua 5.3 in JavaScript) made to behave as Redis 7.0's Lua 5.1 (compat.ts).
 *
 * One state for the process, and each script compiled once in it (keyed by SHA): a simulation
 * runs millions of calls over a handful of masters, and what a master knows (SCRIPT LOAD,
 * NOSCRIPT) is the master's own list of SHAs, not the compiled function. A call's redis.call
 * goes to whichever master is running it, through the runner it passes.
 */
import { lauxlib, lua, lualib, type LuaFunction, type LuaState } from 'fengari';
import { formatG } from '../master/numbers.js';
import { Fail, type Value } from '../master/reply.js';
import { install51, message51 } from './compat.js';
import { oneLine, pushField, pushValue, readValue, stringField } from './convert.js';
import { fromLua, pushString, toLua } from './strings.js';

/** Runs one command for the running script: the reply as RESP2, or its error. */
export type CommandRunner = (args: string[]) => Value;

const kChunkName = toLua('@user_script');
/** fengari's `what` for a JavaScript function: 'J' where C Lua says 'C'. */
const kJs = 74;

export class LuaEngine {
  readonly #L: LuaState;
  readonly #compiled = new Map<string, number>();
  #runner: CommandRunner | undefined;
  /** A JavaScript exception thrown inside the VM (a bug): rethrown once the call unwinds. */
  #native: { error: unknown } | undefined;
  readonly #handler: LuaFunction;

  constructor() {
    const L = lauxlib.luaL_newstate();
    this.#L = L;
    for (const [name, open] of [['_G', lualib.luaopen_base], ['table', lualib.luaopen_table], ['string', lualib.luaopen_string], ['math', lualib.luaopen_math]] as const) {
      lauxlib.luaL_requiref(L, name, open, 1);
      lua.lua_pop(L, 1);
    }
    lua.lua_atnativeerror(L, (state) => {
      this.#native = { error: lua.lua_touserdata(state, -1) };
      lua.lua_pushstring(state, 'a JavaScript error');
      return 1;
    });
    this.#handler = errorHandler;
    install51(L, () => {
      this.#installRedis(L);
    });
  }

  /** Compiles `source` under `sha` unless it already is: undefined, or Redis's compile error. */
  compile(sha: string, source: string): Fail | undefined {
    if (this.#compiled.has(sha)) return undefined;
    const L = this.#L;
    const bytes = toLua(source);
    if (lauxlib.luaL_loadbuffer(L, bytes, bytes.length, kChunkName) !== lua.LUA_OK) {
      const message = fromLua(lua.lua_tolstring(L, -1)!);
      lua.lua_settop(L, 0);
      return new Fail(oneLine(`ERR Error compiling script (new function): ${message}`));
    }
    this.#compiled.set(sha, lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX));
    return undefined;
  }

  /** Runs the compiled script `sha` with KEYS and ARGV; its redis.call commands go to `runner`. */
  run(sha: string, keys: readonly string[], args: readonly string[], runner: CommandRunner): Value {
    const ref = this.#compiled.get(sha);
    if (ref === undefined) throw new Error(`script ${sha} was never compiled`);
    if (this.#runner !== undefined) throw new Error('a script is already running: scripts cannot nest');
    const L = this.#L;
    this.#runner = runner;
    try {
      lua.lua_settop(L, 0);
      lua.lua_pushcfunction(L, this.#handler);
      lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, ref);
      lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, lua.LUA_RIDX_GLOBALS);
      setArray(L, 'KEYS', keys);
      setArray(L, 'ARGV', args);
      lua.lua_pop(L, 1);
      const status = lua.lua_pcall(L, 0, 1, 1);
      const native = this.#native;
      if (native !== undefined) {
        this.#native = undefined;
        throw native.error;
      }
      return status === lua.LUA_OK ? readValue(L, 2) : scriptError(L, sha);
    } finally {
      this.#runner = undefined;
      lua.lua_settop(L, 0);
    }
  }

  #installRedis(L: LuaState): void {
    lua.lua_createtable(L, 0, 4);
    const functions: [string, LuaFunction][] = [
      ['call', (state) => this.#command(state, true)],
      ['pcall', (state) => this.#command(state, false)],
      ['status_reply', (state) => replyTable(state, 'ok')],
      ['error_reply', errorReply],
    ];
    for (const [name, fn] of functions) {
      lua.lua_pushcfunction(L, fn);
      lua.lua_setfield(L, -2, name);
    }
    lua.lua_setglobal(L, 'redis');
  }

  /** redis.call (raise) and redis.pcall: Redis's argument checks, then the command on the master. */
  #command(L: LuaState, raise: boolean): number {
    const argc = lua.lua_gettop(L);
    if (argc === 0) return fail(L, 'ERR Please specify at least one argument for this redis lib call', raise);
    const args = new Array<string>(argc);
    for (let i = 1; i <= argc; i++) {
      const type = lua.lua_type(L, i);
      if (type === lua.LUA_TSTRING) args[i - 1] = fromLua(lua.lua_tolstring(L, i)!);
      // Redis formats a number argument with %.17g (lua_tolstring would lose digits).
      else if (type === lua.LUA_TNUMBER) args[i - 1] = formatG(lua.lua_tonumber(L, i), 17);
      else return fail(L, 'ERR Lua redis lib command arguments must be strings or integers', raise);
    }
    const reply = this.#runner!(args);
    if (reply instanceof Fail) return fail(L, reply.message, raise);
    pushValue(L, reply);
    return 1;
  }
}

function fail(L: LuaState, message: string, raise: boolean): number {
  pushField(L, 'err', message);
  if (raise) lua.lua_error(L);
  return 1;
}

function setArray(L: LuaState, name: string, values: readonly string[]): void {
  pushString(L, name);
  lua.lua_createtable(L, values.length, 0);
  for (let i = 0; i < values.length; i++) {
    pushString(L, values[i]!);
    lua.lua_rawseti(L, -2, i + 1);
  }
  lua.lua_rawset(L, -3);
}

/** redis.status_reply(text) / redis.error_reply's table. */
function replyTable(L: LuaState, field: 'ok' | 'err'): number {
  const text = lua.lua_type(L, 1) === lua.LUA_TSTRING || lua.lua_type(L, 1) === lua.LUA_TNUMBER ? fromLua(lua.lua_tolstring(L, 1)!) : '';
  pushField(L, field, text);
  return 1;
}

/** redis.error_reply: "-CODE msg" keeps its code, anything else gets ERR (luaPushErrorBuff). */
const errorReply: LuaFunction = (L) => {
  const text = lua.lua_type(L, 1) === lua.LUA_TSTRING ? fromLua(lua.lua_tolstring(L, 1)!) : '';
  const raw = text.startsWith('-') ? text.slice(1) : text;
  const message = raw.includes(' ') ? raw : `ERR ${raw}`;
  pushField(L, 'err', message.replace(/[\r\n]+$/, ''));
  return 1;
};

/**
 * The message handler of every script call, as Redis 7.0's __redis__err__handler: an error
 * becomes {err=…, source=…, line=…}, a string error prefixed with ERR (in 5.1's wording), the
 * place being the Lua function that raised it (its caller when a C function — redis.call,
 * error() — raised it).
 */
const errorHandler: LuaFunction = (L) => {
  const ar = new lua.lua_Debug();
  let found = lua.lua_getstack(L, 1, ar) !== 0 && lua.lua_getinfo(L, 'Sl', ar) !== 0;
  if (found && ar.what?.[0] === kJs) found = lua.lua_getstack(L, 2, ar) !== 0 && lua.lua_getinfo(L, 'Sl', ar) !== 0;
  if (lua.lua_type(L, 1) === lua.LUA_TTABLE) lua.lua_pushvalue(L, 1);
  else pushField(L, 'err', `ERR ${message51(describe(L, 1))}`);
  if (found && ar.source !== null) {
    pushString(L, 'source');
    lua.lua_pushstring(L, ar.source);
    lua.lua_rawset(L, -3);
    pushString(L, 'line');
    pushString(L, String(ar.currentline));
    lua.lua_rawset(L, -3);
  }
  return 1;
};

/** tostring() of an error value, as 5.1 prints it. */
function describe(L: LuaState, index: number): string {
  const type = lua.lua_type(L, index);
  if (type === lua.LUA_TSTRING) return fromLua(lua.lua_tolstring(L, index)!);
  if (type === lua.LUA_TNUMBER) return formatG(lua.lua_tonumber(L, index), 14);
  const text = fromLua(lauxlib.luaL_tolstring(L, index));
  lua.lua_pop(L, 1);
  return text;
}

/** The reply of a failed call: "<err> script: <sha>, on @user_script:<line>." (luaCallFunction). */
function scriptError(L: LuaState, sha: string): Fail {
  if (lua.lua_type(L, -1) !== lua.LUA_TTABLE) return new Fail(oneLine(`ERR Error running script ${sha}, ${describe(L, -1).slice(0, 100)}`));
  const err = stringField(L, -1, 'err') ?? '';
  const source = stringField(L, -1, 'source');
  const line = stringField(L, -1, 'line');
  return new Fail(oneLine(source !== undefined && line !== undefined ? `${err} script: ${sha}, on ${source}:${line}.` : err));
}

let shared: LuaEngine | undefined;

/** The process's engine, made on first use. */
export function luaEngine(): LuaEngine {
  shared ??= new LuaEngine();
  return shared;
}
