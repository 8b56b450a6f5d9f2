import type { Command } from '../command.js';
import { parseLongLong } from '../numbers.js';
import { Fail, NOSCRIPT, NOT_INTEGER, OK, arityError, notSimulated, type Value } from '../reply.js';

/** `numkeys key… arg…` of EVAL and EVALSHA, checked as Redis checks it. */
function split(args: readonly string[]): { keys: readonly string[]; argv: readonly string[] } | Fail {
  const count = parseLongLong(args[2]!);
  if (count === undefined) return NOT_INTEGER;
  if (count > BigInt(args.length - 3)) return new Fail('ERR Number of keys can\'t be greater than number of args');
  if (count < 0n) return new Fail('ERR Number of keys can\'t be negative');
  const n = Number(count);
  return { keys: args.slice(3, 3 + n), argv: args.slice(3 + n) };
}

/** `EVAL source numkeys …`: the script is cached as by SCRIPT LOAD (Redis 7.0 keeps EVAL's scripts). */
export const EVAL: Command = {
  name: 'eval', arity: -3, readonly: false, noscript: true,
  run(ctx, args): Value {
    const parts = split(args);
    if (parts instanceof Fail) return parts;
    const sha = ctx.server.loadScript(args[1]!);
    return typeof sha === 'string' ? ctx.server.runScript(ctx, sha, parts.keys, parts.argv) : sha;
  },
};

/** `EVALSHA sha numkeys …`: the SHA in any case; NOSCRIPT when this master has not loaded it. */
export const EVALSHA: Command = {
  name: 'evalsha', arity: -3, readonly: false, noscript: true,
  run(ctx, args): Value {
    const sha = args[1]!;
    // Redis answers a SHA of the wrong length before it reads anything else.
    if (sha.length !== 40) return NOSCRIPT;
    const parts = split(args);
    if (parts instanceof Fail) return parts;
    const lower = sha.toLowerCase();
    return ctx.server.hasScript(lower) ? ctx.server.runScript(ctx, lower, parts.keys, parts.argv) : NOSCRIPT;
  },
};

/** SCRIPT LOAD, EXISTS and FLUSH. */
export const SCRIPT: Command = {
  name: 'script', arity: -2, readonly: false, noscript: true,
  run(ctx, args): Value {
    const sub = args[1]!.toLowerCase();
    switch (sub) {
      case 'load':
        return args.length === 3 ? ctx.server.loadScript(args[2]!) : arityError('script|load');
      case 'exists':
        return args.length >= 3 ? args.slice(2).map((sha) => (ctx.server.hasScript(sha.toLowerCase()) ? 1 : 0)) : arityError('script|exists');
      case 'flush': {
        const mode = args[2]?.toLowerCase();
        if (args.length > 3 || (mode !== undefined && mode !== 'sync' && mode !== 'async')) return new Fail('ERR SCRIPT FLUSH only support SYNC|ASYNC option');
        ctx.server.flushScripts();
        return OK;
      }
      case 'kill':
      case 'debug':
      case 'help':
        return notSimulated(`SCRIPT ${sub.toUpperCase()}`);
      default:
        return new Fail(`ERR unknown subcommand '${args[1]!.slice(0, 128)}'. Try SCRIPT HELP.`);
    }
  },
};
