/** One command in RESP appended to `out`; lengths in bytes, as a key or token may hold any UTF-8. */
export function encode(out: string, args: readonly string[]): string {
  out += `*${args.length}\r\n`;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    out += `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`;
  }
  return out;
}

/**
 * The RESP of commands sent to every master with the same words (an operation's, made once by the coalescer,
 * src/engine/coalescer.ts), encoded once: five masters encoded each operation's words five times.
 */
const wires = new WeakMap<readonly string[], string>();

/** `args` in RESP appended to `out`, the encoding kept for the next master's call of the same words. */
export function encodeShared(out: string, args: readonly string[]): string {
  let wire = wires.get(args);
  if (wire === undefined) {
    wire = encode('', args);
    wires.set(args, wire);
  }
  return out + wire;
}
