/**
 * In-memory stand-ins for @redis/client clients that answer every command at once and agree to
 * everything: Redlock's client-side cost per operation with no network and no Redis in the way.
 */
import { createHash } from 'node:crypto';
import type { RedisClient } from '../../src/index.js';
import { LEAN_SHA } from '../../src/protocol/lean-script.js';

/**
 * The reply a master that holds nothing would give (SET → OK, a script → every op fully
 * applied), or with `refuse` one where every key is held by someone else (SET → null, script → 0s).
 */
export function fakeReply(args: readonly string[], refuse = false): unknown {
  const command = args[0];
  if (command === 'SET') return refuse ? null : 'OK';
  if (command === 'SCRIPT') return createHash('sha1').update(args[2] ?? '').digest('hex');
  if (command === 'EVALSHA' && args[1] === LEAN_SHA) {
    // One single-key operation per key; all applied: the integer n.
    const n = Number(args[2]);
    return refuse ? new Array<number>(n).fill(0) : n;
  }
  if (command === 'EVALSHA') {
    const numKeys = Number(args[2]);
    const argv = 3 + numKeys;
    const out: number[] = [];
    // pipelock's batch ARGV: code[key count] token [ttl] per operation (no ttl for R, Q, X);
    // reply: the key count.
    for (let a = argv; a < args.length;) {
      const code = args[a] ?? '';
      out.push(refuse ? 0 : code.length > 1 ? Number(code.slice(1)) : 1);
      a += code[0] === 'R' || code[0] === 'Q' || code[0] === 'X' ? 2 : 3;
    }
    return out;
  }
  throw new Error(`fake master: unexpected ${command ?? 'empty command'}`);
}

export function fakeClient(refuse = false): RedisClient {
  return {
    isOpen: true,
    isReady: true,
    sendCommand: (args) => Promise.resolve(fakeReply(args, refuse)),
    on: () => undefined,
    off: () => undefined,
  };
}
