/**
 * JavaScript strings to Lua's byte strings and back (UTF-8), the conversions every script call
 * makes for each key, argument and reply, and the bulk of a call's cost.
 *
 * The keys, tokens and codes of a simulation repeat, and Lua strings never change: a string
 * pushed into Lua is made once (bytes and Lua string object, whose hash Lua caches on it) and
 * pushed again as the same object; a Lua string read back is decoded once per byte array (the
 * script's constants, and the strings pushed this way, keep theirs).
 */
import type { LuaState, LuaString } from 'fengari';
import lobject from 'fengari/src/lobject.js';
import lstring from 'fengari/src/lstring.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** Short enough for String.fromCharCode's argument list. */
const kApplyMax = 4096;
/** Strings kept for pushing again; the cache starts over when it holds this many. */
const kCacheMax = 1 << 16;

export function toLua(text: string): LuaString {
  const length = text.length;
  if (length > kApplyMax) return encoder.encode(text);
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80) return encoder.encode(text);
    bytes[i] = code;
  }
  return bytes;
}

const decoded = new WeakMap<LuaString, string>();

export function fromLua(bytes: LuaString): string {
  const known = decoded.get(bytes);
  if (known !== undefined) return known;
  const text = decode(bytes);
  decoded.set(bytes, text);
  return text;
}

function decode(bytes: LuaString): string {
  const length = bytes.length;
  if (length > kApplyMax) return decoder.decode(bytes);
  for (let i = 0; i < length; i++) if (bytes[i]! >= 0x80) return decoder.decode(bytes);
  return String.fromCharCode.apply(null, bytes as unknown as number[]);
}

let made = new Map<string, unknown>();

/** Pushes `text` as a Lua string: the same string object each time it is pushed. */
export function pushString(L: LuaState, text: string): void {
  let ts = made.get(text);
  if (ts === undefined) {
    const bytes = toLua(text);
    ts = lstring.luaS_bless(L, bytes);
    decoded.set(bytes, text);
    if (made.size >= kCacheMax) made = new Map();
    made.set(text, ts);
  }
  lobject.pushsvalue2s(L, ts);
}
