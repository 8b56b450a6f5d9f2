import { OP_ACQUIRE, OP_EXTEND, OP_RELEASE, type OpArgs } from './opcodes.js';

/**
 * The script-free forms of the single-key operations, for servers that compare and set or delete
 * natively (docs/decisions/0007-native-commands.md):
 *   acquire: SET key token NX PX ttl                       (every server; 'OK' or nil)
 *            MSETEX n key token … NX PX ttl               (several keys; Valkey 9.1+, Redis 8.4+; 1 or 0, all or none)
 *   extend:  SET key token IFEQ token PX ttl                (Valkey 8.1+, Redis 8.4+; 'OK' or nil)
 *   release: DELIFEQ key token                              (Valkey 9.0+; 1 or 0)
 *            DELEX key IFEQ token                           (Redis 8.4+, Valkey 9.2+; 1 or 0)
 * Each is one atomic command that only ever touches the caller's own value, as the scripts' GET
 * then PEXPIRE/DEL do inside one script.
 */

/** The commands of owner-checked single-key operations: native where a member has them ('auto', 'native'), or scripts. */
export type CommandsMode = 'auto' | 'native' | 'scripts';

/** The compare-and-delete command a server has, if any. */
export type DeleteCommand = 'DELIFEQ' | 'DELEX';

/** What a member accepts besides the commands every server has. */
export interface Capabilities {
  /** `SET … IFEQ`. */
  readonly setIfEq: boolean;
  /** The compare-and-delete command; undefined when it has neither. */
  readonly deleteIfEq: DeleteCommand | undefined;
  /** EVALSHA and SCRIPT LOAD are allowed (an ACL user without @scripting gets NOPERM). */
  readonly scripting: boolean;
  /** `MSETEX … NX PX`: a multi-key acquisition, all keys or none, in one command. */
  readonly msetex: boolean;
}

/** What a member is assumed to accept before its probe answers: what pipelock always sent. */
export const SCRIPTS_ONLY: Capabilities = Object.freeze({ setIfEq: false, deleteIfEq: undefined, scripting: true, msetex: false });

/** `SET key token NX PX ttl`: a single-key acquisition, on every server. */
export function setNxArgs(key: string, token: string, ttlArg: string): string[] {
  return ['SET', key, token, 'NX', 'PX', ttlArg];
}

/** `MSETEX n key token … NX PX ttl`: a multi-key acquisition that sets every key or none (the script's `A`). */
export function msetexArgs(keys: readonly string[], token: string, ttlArg: string): string[] {
  const args = ['MSETEX', String(keys.length)];
  for (const key of keys) args.push(key, token);
  args.push('NX', 'PX', ttlArg);
  return args;
}

/** `SET key token IFEQ token PX ttl`: re-arms the key only while it holds the token; never creates it. */
export function setIfEqArgs(key: string, token: string, ttlArg: string): string[] {
  return ['SET', key, token, 'IFEQ', token, 'PX', ttlArg];
}

/** The owner-checked delete in the command the member has. */
export function deleteIfEqArgs(command: DeleteCommand, key: string, token: string): string[] {
  return command === 'DELIFEQ' ? ['DELIFEQ', key, token] : ['DELEX', key, 'IFEQ', token];
}

/**
 * The native words of `op` on a member with `caps`, or undefined when it needs a script: a single-key acquire
 * always; a multi-key acquire, a single-key extend or release where the member has the command. The rest (multi-key
 * extend and release, fencing, kinds) keep scripts.
 */
export function nativeArgs(op: OpArgs, caps: Capabilities): string[] | undefined {
  if (op.keys.length !== 1) {
    // Only where scripts run: such a lock's extend and release have no native form, so a member without them could not
    // let go of it.
    return op.opcode === OP_ACQUIRE && caps.msetex && caps.scripting ? msetexArgs(op.keys, op.token, op.ttlArg) : undefined;
  }
  switch (op.opcode) {
    case OP_ACQUIRE:
      return setNxArgs(op.keys[0]!, op.token, op.ttlArg);
    case OP_EXTEND:
      return caps.setIfEq ? setIfEqArgs(op.keys[0]!, op.token, op.ttlArg) : undefined;
    case OP_RELEASE:
      return caps.deleteIfEq === undefined ? undefined : deleteIfEqArgs(caps.deleteIfEq, op.keys[0]!, op.token);
    default:
      return undefined;
  }
}

/**
 * A native command's reply as the script's integer for the operation of `keys` keys ('OK' or 1 → all of them, as the
 * script counts them; nil or 0 → 0), or undefined when it is neither.
 */
export function nativeReply(reply: unknown, keys = 1): number | undefined {
  if (reply === 'OK' || reply === 1) return keys;
  if (reply === null || reply === 0) return 0;
  return undefined;
}

/** A native command a member may lack (and fall back from): every one but SET NX. */
export type NativeCommand = 'SET IFEQ' | DeleteCommand | 'MSETEX';

/** Which native command `args` is, for messages and fallbacks; undefined for SET NX. */
export function nativeCommandOf(args: readonly string[]): NativeCommand | undefined {
  const name = args[0];
  if (name === 'DELIFEQ' || name === 'DELEX' || name === 'MSETEX') return name;
  return name === 'SET' && args[3] === 'IFEQ' ? 'SET IFEQ' : undefined;
}

/** The key the probes touch: never set by them (IFEQ never creates, the deletes find nothing). */
export const PROBE_KEY = 'pipelock:probe';
/** A value no key holds: the probes compare against it. */
const kProbeValue = 'pipelock:probe:absent';

/** The probes of a member's capabilities: each a command that changes nothing on any server that accepts it. */
export const PROBES = {
  setIfEq: ['SET', PROBE_KEY, kProbeValue, 'IFEQ', kProbeValue, 'PX', '1000'],
  DELIFEQ: ['DELIFEQ', PROBE_KEY, kProbeValue],
  DELEX: ['DELEX', PROBE_KEY, 'IFEQ', kProbeValue],
  // XX on a key that does not exist: sets nothing.
  MSETEX: ['MSETEX', '1', PROBE_KEY, kProbeValue, 'XX', 'PX', '1000'],
} as const satisfies Record<string, readonly string[]>;

/**
 * What a probe's outcome says: 'yes' (answered), 'no' (unknown, syntax error, denied), 'key' (refused by an ACL key
 * pattern, checked before parsing: ask the version), 'unknown' (failed, or an error that says nothing: ask again).
 */
export function probeVerdict(outcome: { readonly reply?: unknown; readonly error?: Error }): 'yes' | 'no' | 'key' | 'unknown' {
  const error = outcome.error;
  if (error === undefined) return 'yes';
  const message = error.message;
  if (message.startsWith('NOPERM')) return /run the '[^']+' command/.test(message) ? 'no' : 'key';
  if (/^ERR (unknown command|unknown subcommand|syntax error|wrong number of arguments)/i.test(message)) return 'no';
  return 'unknown';
}

/** The native commands a server has by its version (INFO server), for probes refused for their key. */
export function nativeByVersion(info: string): Omit<Capabilities, 'scripting'> | undefined {
  const valkey = /^valkey_version:(\d+)\.(\d+)/m.exec(info);
  const redis = /^redis_version:(\d+)\.(\d+)/m.exec(info);
  const version = valkey ?? redis;
  if (version === null) return undefined;
  const at = Number(version[1]) * 100 + Number(version[2]);
  // Valkey: SET IFEQ 8.1, DELIFEQ 9.0, MSETEX 9.1, DELEX 9.2; Redis: SET IFEQ, DELEX and MSETEX 8.4.
  if (valkey !== null) return { setIfEq: at >= 801, deleteIfEq: at >= 900 ? 'DELIFEQ' : undefined, msetex: at >= 901 };
  return { setIfEq: at >= 804, deleteIfEq: at >= 804 ? 'DELEX' : undefined, msetex: at >= 804 };
}

/** Whether a script error says no scripts run here for this user: ACL without @scripting, a proxy, no Lua engine module. */
export function isScriptingDenied(error: Error): boolean {
  const message = error.message;
  return /^NOPERM\b.*run the '(evalsha|eval|script\|load|script|evalsha_ro|eval_ro)' command/.test(message)
    || /^ERR unknown command '(evalsha|eval|script)'/i.test(message)
    || message.startsWith('ERR Could not find scripting engine');
}
