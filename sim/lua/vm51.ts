/**
 * Lua 5.1 inside fengari's 5.3 VM, for every script of the process: its numbers, and the order
 * in which next() and pairs() walk a table.
 *
 * 5.1 has one number type, a double. In 5.3 a numeral without a point is an integer, and
 * fengari's integers are 32-bit, so `local a = 2147483647 return a + 1` wraps to -2147483648
 * where Redis answers 2147483648; and 5.3 prints a float with an integer value as "3.0" where 5.1
 * prints "3". fengari's lexer, VM and API read numerals and print numbers through two functions of
 * its lobject module (looked up on the module object at each call): replaced here so that every
 * numeral — in the source, or a string coerced by arithmetic — is a double parsed as 5.1's strtod
 * parses it, and every number prints with 5.1's %.14g. Integers still come from `#`, string.byte,
 * math.floor and the like, small enough never to wrap.
 *
 * fengari's tables keep one insertion-ordered map, and a constructor inserts its items last to
 * first, so pairs({10, 20}) gave 2 before 1; 5.1 walks the array part first, in index order. The
 * table module's next (also looked up on the module object) now walks 1…#t first, then the other
 * keys in insertion order (a loop that clears the array items as it goes may stop early: #t
 * shrinks under it). Installed once, on first import.
 */
import lobject from 'fengari/src/lobject.js';
import ltable from 'fengari/src/ltable.js';
import lstring from 'fengari/src/lstring.js';
import { formatG, strtod } from '../master/numbers.js';
import { fromLua, toLua } from './strings.js';

/** Lua 5.1's luaO_str2d: strtod over the string, trailing spaces allowed, nothing else. */
export function parseNumber51(text: string): number | undefined {
  const end = text.indexOf('\0');
  const body = end < 0 ? text : text.slice(0, end);
  const read = strtod(body);
  if (read.end === 0) return undefined;
  return /^[ \t\n\v\f\r]*$/.test(body.slice(read.end)) ? read.value : undefined;
}

lobject.luaO_str2num = (s, o) => {
  const value = parseNumber51(fromLua(s));
  if (value === undefined) return 0;
  o.setfltvalue(value);
  return s.length + 1;
};

lobject.luaO_tostring = (L, obj) => {
  obj.setsvalue(lstring.luaS_bless(L, toLua(formatG(obj.value as number, 14))));
};

const next53 = ltable.luaH_next.bind(ltable);

/** Whether `key` is one of 1…border (the array part as 5.1 walks it). */
function inArray(key: { ttisnumber(): boolean; value: unknown }, border: number): boolean {
  if (!key.ttisnumber()) return false;
  const index = key.value as number;
  return Number.isInteger(index) && index >= 1 && index <= border;
}

ltable.luaH_next = (L, table, keyI) => {
  const key = L.stack[keyI]!;
  const border = ltable.luaH_getn(table);
  let index: number | undefined;
  if (key.ttisnil()) index = 0;
  else if (inArray(key, border)) index = key.value as number;
  if (index !== undefined) {
    if (index < border) {
      key.setivalue(index + 1);
      L.stack[keyI + 1]!.setfrom(ltable.luaH_getint(table, index + 1));
      return true;
    }
    key.setnilvalue();
  }
  while (next53(L, table, keyI)) if (!inArray(L.stack[keyI]!, border)) return true;
  return false;
};
