/** One command in RESP appended to `out`; lengths in bytes, as a key or token may hold any UTF-8. */
export function encode(out: string, args: readonly string[]): string {
  out += `*${args.length}\r\n`;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    out += `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`;
  }
  return out;
}
