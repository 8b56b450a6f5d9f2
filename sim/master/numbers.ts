/**
 * Redis 7.0's number parsing and formatting, byte for byte where replies depend on it: string2ll
 * for integer arguments and INCR, glibc strtod for scores and ranges, printf's %.17g for doubles.
 */
import { printfFloat } from './printf.js';

const kLongLong = /^(?:0|-?[1-9][0-9]*)$/;
const kMaxLongLong = 2n ** 63n - 1n;
const kMinLongLong = -(2n ** 63n);
/** LONG_STR_SIZE in Redis's util.h: a longer string is never an integer. */
const kLongStrSize = 21;

/** Redis's string2ll: no sign but '-', no leading zeros or spaces, within a signed 64-bit integer. */
export function parseLongLong(text: string): bigint | undefined {
  if (text.length === 0 || text.length >= kLongStrSize || !kLongLong.test(text)) return undefined;
  const value = BigInt(text);
  return value > kMaxLongLong || value < kMinLongLong ? undefined : value;
}

/** Below 10^15 an integer is exact as a double: no BigInt needed (every TTL and index pipelock sends). */
const kShort = 16;

/** string2ll as a JS number (exact below 2^53). */
export function parseInteger(text: string): number | undefined {
  if (text.length < kShort) return kLongLong.test(text) ? Number(text) : undefined;
  const value = parseLongLong(text);
  return value === undefined ? undefined : Number(value);
}

export { kMaxLongLong, kMinLongLong };

/** C's isspace in the "C" locale. */
function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13);
}

const kDecimal = /^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?/;
const kHex = /^([+-]?)0[xX]((?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+))(?:[pP]([+-]?[0-9]+))?/;
const kSpecial = /^([+-]?)(?:(inf(?:inity)?)|(nan(?:\([0-9A-Za-z_]*\))?))/i;

/** What glibc's strtod read: the value, where it stopped, and whether it set ERANGE. */
export interface Strtod {
  readonly value: number;
  /** Index just past the last character used; 0 when nothing was (strtod's endptr == nptr). */
  readonly end: number;
  readonly range: boolean;
}

/** glibc's strtod: leading spaces, then the longest decimal, hex, inf or nan prefix. */
export function strtod(text: string): Strtod {
  let start = 0;
  while (start < text.length && isSpace(text.charCodeAt(start))) start++;
  const rest = text.slice(start);
  const special = kSpecial.exec(rest);
  if (special !== null) {
    const negative = special[1] === '-';
    const value = special[2] !== undefined ? (negative ? -Infinity : Infinity) : NaN;
    return { value, end: start + special[0].length, range: false };
  }
  const hex = kHex.exec(rest);
  if (hex !== null) {
    const value = hexValue(hex[1] === '-', hex[2]!, hex[3]);
    return { value, end: start + hex[0].length, range: !Number.isFinite(value) || (value === 0 && /[1-9a-fA-F]/.test(hex[2]!)) };
  }
  const decimal = kDecimal.exec(rest);
  if (decimal === null) return { value: 0, end: 0, range: false };
  const value = Number.parseFloat(decimal[0]);
  const mantissa = decimal[0].replace(/[eE].*$/, '');
  return { value, end: start + decimal[0].length, range: !Number.isFinite(value) || (value === 0 && /[1-9]/.test(mantissa)) };
}

function hexValue(negative: boolean, digits: string, exponent: string | undefined): number {
  const [whole = '', fraction = ''] = digits.split('.');
  let value = 0;
  for (const digit of whole + fraction) value = value * 16 + Number.parseInt(digit, 16);
  value *= 2 ** (Number(exponent ?? '0') - 4 * fraction.length);
  return negative ? -value : value;
}

/** Redis's getDoubleFromObject (ZADD's scores): the whole string, no leading space, not NaN, no overflow. */
export function parseScore(text: string): number | undefined {
  if (text.length === 0 || isSpace(text.charCodeAt(0))) return undefined;
  const read = strtod(text);
  if (read.end !== text.length || Number.isNaN(read.value)) return undefined;
  if (read.range && (!Number.isFinite(read.value) || read.value === 0)) return undefined;
  return read.value;
}

/** One bound of ZREMRANGEBYSCORE (zslParseRange): '(' for exclusive, then strtod to the end, not NaN. */
export function parseScoreBound(text: string): { readonly value: number; readonly exclusive: boolean } | undefined {
  const exclusive = text.startsWith('(');
  const body = exclusive ? text.slice(1) : text;
  const read = strtod(body);
  // strtod reading nothing leaves endptr at the start: an empty string passes (as 0), "x" does not.
  if (read.end !== body.length || Number.isNaN(read.value)) return undefined;
  return { value: read.value, exclusive };
}

/**
 * printf's `%.{precision}g` as glibc prints a double: what Redis replies for scores (%.17g), how
 * Lua numbers become command arguments (%.17g) and Lua 5.1's tostring (%.14g).
 */
export function formatG(value: number, precision: number): string {
  // Integers below 10^precision print as themselves: the common case, kept fast.
  if (Number.isInteger(value) && Math.abs(value) < 10 ** precision && !Object.is(value, -0)) return String(value);
  return printfFloat(value, 'g', '', 0, precision);
}

/** C's `(long long)x` on x86-64: truncation, and LLONG_MIN for NaN and whatever does not fit. */
export function toLongLong(value: number): number {
  if (Number.isNaN(value) || value >= 2 ** 63 || value < -(2 ** 63)) return -(2 ** 63);
  return Math.trunc(value) + 0;
}
