/** One command in RESP appended to `out`; lengths in bytes, as a key or token may hold any UTF-8. */
export function encode(out: string, args: readonly string[]): string {
  out += `*${args.length}\r\n`;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    out += `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`;
  }
  return out;
}

const kWire = Symbol('pipelock.wire');

/** Words sent to every master (an operation's, made once by the coalescer), carrying their RESP once encoded. */
type Kept = readonly string[] & { [kWire]?: string };

/**
 * `args` in RESP appended to `out`, the encoding kept on the array for the next master's call of the same words: five
 * masters encoded each operation's words five times. On the array, not in a WeakMap: a WeakMap entry per operation
 * cost more than the encoding it saved, most of it in the garbage collector (docs/decisions/0010-lean-connection.md,
 * "The kept encoding").
 */
export function encodeShared(out: string, args: readonly string[]): string {
  const kept = args as Kept;
  // A frozen array (none is made so today) is encoded each time rather than failing the flush.
  if (!Object.isExtensible(kept)) return encode(out, args);
  return out + (kept[kWire] ??= encode('', args));
}
