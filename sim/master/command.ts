import type { Keyspace } from './keyspace.js';
import type { Value } from './reply.js';
import type { Session } from './tracking.js';

/** What a command runs against: one command's view of the master. */
export interface Context {
  readonly db: Keyspace;
  /**
   * The command's time on the master's clock, frozen for the whole command (a script included,
   * as Redis freezes a script's clock for expiry): µs, and whole ms (Redis's mstime()).
   */
  readonly nowUs: number;
  readonly nowMs: number;
  /** The protocol of the reply: 2 inside a script (its replies are RESP2 unless it asks for 3). */
  readonly resp: 2 | 3;
  /** The connection the command came from (a script's caller for the commands it runs). */
  readonly session: Session;
  /** Whether the command runs from a script. */
  readonly inScript: boolean;
  /** `key` was modified (Redis's signalModifiedKey): tracking pushes its invalidation. */
  signal(key: string): void;
  /** The master's scripting and connection-level services, for EVAL, SCRIPT and CLIENT. */
  readonly server: Server;
}

/** What EVAL, SCRIPT and CLIENT need beyond the keyspace, and which server this is. */
export interface Server {
  /** A Valkey 9 master (SET IFEQ, DELIFEQ) rather than Redis 7.0. */
  readonly valkey: boolean;
  /** Loads a script into the cache: its SHA, or the compile error. */
  loadScript(source: string): string | Value;
  hasScript(sha: string): boolean;
  flushScripts(): void;
  /** Runs a cached script (lowercase SHA) for the context's caller. */
  runScript(ctx: Context, sha: string, keys: readonly string[], args: readonly string[]): Value;
}

/** One command of the simulated master. */
export interface Command {
  /** Lowercase, as Redis names it in errors ('get'; subcommands are 'script|load'). */
  readonly name: string;
  /** Redis's arity: argc exactly when ≥ 0, at least -arity when < 0. */
  readonly arity: number;
  /** A read: a tracking caller remembers its keys. */
  readonly readonly: boolean;
  /** Refused from scripts (EVAL, SCRIPT, CLIENT). */
  readonly noscript: boolean;
  /** The keys it reads, for tracking (readonly commands). */
  readonly keys?: (args: readonly string[]) => readonly string[];
  run(ctx: Context, args: readonly string[]): Value;
}

/** The first argument is the key. */
export function firstKey(args: readonly string[]): readonly string[] {
  return [args[1]!];
}

/** Every argument after the name is a key. */
export function allKeys(args: readonly string[]): readonly string[] {
  return args.slice(1);
}
