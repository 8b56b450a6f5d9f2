/**
 * JavaScript strings to Lua's byte strings and back (UTF-8), the conversions every script call
 * makes for each key, argument and reply: ASCII, which is all pipelock sends, takes a fast path.
 */
import type { LuaString } from 'fengari';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** Short enough for String.fromCharCode's argument list. */
const kApplyMax = 4096;

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

export function fromLua(bytes: LuaString): string {
  const length = bytes.length;
  if (length > kApplyMax) return decoder.decode(bytes);
  for (let i = 0; i < length; i++) if (bytes[i]! >= 0x80) return decoder.decode(bytes);
  return String.fromCharCode.apply(null, bytes as unknown as number[]);
}
