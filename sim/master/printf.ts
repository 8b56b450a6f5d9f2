/**
 * glibc's printf of a double (%e %f %g, and the %.17g Redis uses), digit for digit: from the
 * double's exact decimal value, rounded half to even. JavaScript's toFixed and toExponential
 * round an exact tie up (2.5 → "3" where C prints "2"), so they cannot be used as they are.
 */

/** The exact value of |x| (finite) as digits × 10^-scale. */
function exact(x: number): { digits: string; scale: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  const mantissa = biased === 0 ? fraction : fraction | (1n << 52n);
  const exponent = (biased === 0 ? 1 : biased) - 1075;
  if (exponent >= 0) return { digits: (mantissa << BigInt(exponent)).toString(), scale: 0 };
  return { digits: (mantissa * 5n ** BigInt(-exponent)).toString(), scale: -exponent };
}

/**
 * |x| rounded half to even to `kept` digits from its first significant one, as
 * { digits (exactly `kept` of them, or '' for kept ≤ 0 rounding to 0), exponent of the first }.
 * With `fixed`, `kept` counts digits after the point instead.
 */
function rounded(x: number, kept: number, fixed: boolean): { digits: string; exponent: number } {
  const { digits: raw, scale } = exact(x);
  const digits = raw.replace(/^0+/, '') || '0';
  let exponent = raw === '0' || digits === '0' ? 0 : digits.length - 1 - scale;
  const count = fixed ? exponent + 1 + kept : kept;
  if (digits === '0') return { digits: '0'.repeat(Math.max(0, count)), exponent: 0 };
  if (count < 0) return { digits: '', exponent };
  let head = digits.slice(0, count).padEnd(count, '0');
  const rest = digits.slice(count);
  const first = rest.charCodeAt(0) - 48;
  // Half to even: a tie rounds up only after an odd digit (nothing kept counts as 0, even).
  const odd = head.length > 0 && (head.charCodeAt(head.length - 1) - 48) % 2 === 1;
  const up = rest.length > 0 && (first > 5 || (first === 5 && (/[1-9]/.test(rest.slice(1)) || odd)));
  if (up) {
    const bumped = (BigInt(head || '0') + 1n).toString();
    if (bumped.length > head.length) {
      exponent += 1;
      head = fixed ? bumped : bumped.slice(0, count);
    } else {
      head = bumped.padStart(head.length, '0');
    }
  }
  return { digits: head, exponent };
}

function special(x: number, upper: boolean): string | undefined {
  if (Number.isNaN(x)) return upper ? '-NAN' : '-nan';
  if (x === Infinity) return upper ? 'INF' : 'inf';
  if (x === -Infinity) return upper ? '-INF' : '-inf';
  return undefined;
}

function sign(x: number): string {
  return x < 0 || Object.is(x, -0) ? '-' : '';
}

/** %.{precision}e without sign, flags or width. */
function formatE(x: number, precision: number, upper: boolean, alternate: boolean): string {
  const { digits, exponent } = rounded(x, precision + 1, false);
  const mantissa = precision === 0 ? `${digits[0]!}${alternate ? '.' : ''}` : `${digits[0]!}.${digits.slice(1)}`;
  return `${mantissa}${upper ? 'E' : 'e'}${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
}

/** %.{precision}f without sign, flags or width. */
function formatF(x: number, precision: number, alternate: boolean): string {
  const { digits, exponent } = rounded(x, precision, true);
  const padded = digits.padStart(precision + 1, '0');
  const whole = exponent < 0 && digits.length <= precision ? '0' : padded.slice(0, padded.length - precision) || '0';
  const fraction = padded.slice(padded.length - precision);
  return precision === 0 ? `${whole}${alternate ? '.' : ''}` : `${whole}.${fraction}`;
}

/** %.{precision}g without sign, flags or width. */
function formatG(x: number, precision: number, upper: boolean, alternate: boolean): string {
  const p = precision === 0 ? 1 : precision;
  const exponent = x === 0 ? 0 : rounded(x, p, false).exponent;
  const text = exponent < -4 || exponent >= p ? formatE(x, p - 1, upper, alternate) : formatF(x, p - 1 - exponent, alternate);
  if (alternate) return text;
  return text.replace(/\.?0+(?=[eE]|$)/, (match) => (match.includes('.') || text.includes('.') ? '' : match));
}

/** printf's %e %E %f %g %G of one double, with its flags ('-+ #0'), width and precision. */
export function printfFloat(x: number, conversion: string, flags = '', width = 0, precision = 6): string {
  const upper = conversion === 'E' || conversion === 'G';
  const alternate = flags.includes('#');
  let body = special(x, upper);
  const bad = body !== undefined;
  if (body === undefined) {
    body = conversion === 'f' ? formatF(x, precision, alternate) : conversion === 'e' || conversion === 'E' ? formatE(x, precision, upper, alternate) : formatG(x, precision, upper, alternate);
    body = sign(x) + body;
  }
  if (!body.startsWith('-')) body = (flags.includes('+') ? '+' : flags.includes(' ') ? ' ' : '') + body;
  if (body.length >= width) return body;
  if (flags.includes('-')) return body.padEnd(width);
  if (flags.includes('0') && !bad) {
    const lead = /^[-+ ]/.test(body) ? body[0]! : '';
    return lead + body.slice(lead.length).padStart(width - lead.length, '0');
  }
  return body.padStart(width);
}
