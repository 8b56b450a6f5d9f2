import { BATCH_SCRIPT } from './protocol/batch-script.js';
import { LEAN_SCRIPT } from './protocol/lean-script.js';
import { RELEASE_SCRIPT } from './protocol/release-script.js';
import {
  OP_ACQUIRE, OP_EXTEND, OP_FENCED_ACQUIRE, OP_GATED, OP_HANDOVER, OP_INCR, OP_IS_DONE, OP_MARK_DONE, OP_PERMIT, OP_PERMIT_EXTEND,
  OP_PERMIT_RELEASE, OP_RAISE, OP_READ, OP_READ_EXTEND, OP_READ_RELEASE, OP_RELEASE, OP_WRITE, OP_LEADER_WRITE, OP_LEADER_ERASE,
  OP_LEADER_READ, OP_HISTORY_READ, OP_KEYS_READ,
} from './protocol/opcodes.js';

/** What a Redis ACL user must be granted for a part of pipelock: `aclGrants()` derives it from what the code sends. */
export type AclFeature = 'lock' | 'fencing' | 'runOnce' | 'semaphore' | 'rwlock' | 'watchHeld' | 'election';
/** Every feature, in the order aclGrants() takes them by default. */
export const ACL_FEATURES: readonly AclFeature[] = ['lock', 'fencing', 'runOnce', 'semaphore', 'rwlock', 'watchHeld', 'election'];

/** Commands (lower case, `container|sub` for subcommands), key patterns and channels, each as ACL SETUSER writes it. */
export interface AclGrants {
  /** Commands, lower case (`script|load`, `client|tracking`), without the `+`. */
  readonly commands: readonly string[];
  /** Key patterns with their permissions (`%RW~locks:*`). */
  readonly keys: readonly string[];
  /** Pub/sub channels (`&__redis__:invalidate`, ioredis' tracking redirect). */
  readonly channels: readonly string[];
}

/** The batch script's operations each feature runs; `lock` is every acquisition's (waiting at the gate and passing are on by default). */
const kOps: Readonly<Record<AclFeature, readonly string[]>> = {
  // OP_LEADER_READ: a refused renewal of an auto-extended lock reads the key and its revoked-marker.
  lock: [OP_ACQUIRE, OP_EXTEND, OP_RELEASE, OP_GATED, OP_HANDOVER, OP_KEYS_READ, OP_LEADER_READ],
  fencing: [OP_FENCED_ACQUIRE, OP_RAISE],
  runOnce: [OP_INCR, OP_MARK_DONE, OP_IS_DONE],
  semaphore: [OP_PERMIT, OP_PERMIT_EXTEND, OP_PERMIT_RELEASE],
  rwlock: [OP_READ, OP_READ_EXTEND, OP_READ_RELEASE, OP_WRITE],
  watchHeld: [],
  election: [OP_RAISE, OP_LEADER_WRITE, OP_LEADER_ERASE, OP_LEADER_READ, OP_HISTORY_READ],
};

/**
 * What is sent outside the scripts, by who sends it: loading and running scripts, the capability
 * probe (INFO; a GET and SET on pipelock:probe), a lone acquisition's SET NX PX, the connection's
 * HELLO and QUIT; the watch connection's tracking and its reads (src/watch/watch.ts, for waiting
 * callers and watchHeld). ioredis needs CLIENT ID and SUBSCRIBE
 * for its tracking redirect (src/watch/ioredis-link.ts).
 */
const kSent: Readonly<Record<AclFeature, readonly string[]>> = {
  lock: ['evalsha', 'eval', 'script|load', 'info', 'get', 'set', 'pttl', 'hello', 'quit', 'ping', 'client|tracking',
    'client|id', 'subscribe', 'zrem'],
  fencing: [],
  runOnce: [],
  semaphore: [],
  rwlock: [],
  watchHeld: ['mget'],
  election: [],
};

/** Whole scripts a feature runs besides the batch script's operations. */
const kScripts: Readonly<Record<AclFeature, readonly string[]>> = {
  lock: [LEAN_SCRIPT, RELEASE_SCRIPT], fencing: [], runOnce: [], semaphore: [], rwlock: [], watchHeld: [], election: [],
};

/** Each `redis.call('CMD'` / `redis.pcall('CMD'` (or a local alias `call(`, `pcall(`) of a Lua source, lower case. */
export function luaCommands(source: string): Set<string> {
  return new Set([...source.matchAll(/\b(?:redis\.)?p?call\(\s*'([A-Za-z]+)'/g)].map((m) => m[1]!.toLowerCase()));
}

/**
 * The batch script's commands per operation: each `if/elseif op == 'X'` branch's own calls and those
 * of the local functions it calls (transitively); a last branch that names no operation serves
 * the ones no branch names.
 */
export function batchCommands(source = BATCH_SCRIPT): Map<string, Set<string>> {
  const functions = new Map<string, string>();
  for (const m of source.matchAll(/local function (\w+)\([^)]*\)\n([\s\S]*?)\nend\n/g)) functions.set(m[1]!, m[2]!);
  const expand = (body: string, seen: Set<string>): Set<string> => {
    const out = luaCommands(body);
    for (const [name, inner] of functions) {
      if (seen.has(name) || !new RegExp(`\\b${name}\\(`).test(body)) continue;
      seen.add(name);
      for (const command of expand(inner, seen)) out.add(command);
    }
    return out;
  };
  // The dispatch is the if/elseif chain after `local r = 0`, indented by two spaces; nested ones are deeper.
  const start = source.indexOf("local r = 0\n  if op == '");
  const loop = source.slice(start, source.indexOf('\n  end\n', start));
  const branches = loop.split(/\n(?= {2}elseif )/);
  const byOp = new Map<string, Set<string>>();
  let rest: Set<string> | undefined;
  for (const branch of branches) {
    const ops = [...branch.slice(0, branch.indexOf(' then')).matchAll(/op == '(\w)'/g)].map((m) => m[1]!);
    const commands = expand(branch, new Set());
    if (ops.length === 0) rest = commands;
    for (const op of ops) byOp.set(op, commands);
  }
  if (rest !== undefined) for (const op of Object.values(kOps).flat()) if (!byOp.has(op)) byOp.set(op, rest);
  return byOp;
}

/**
 * The grants for `features` (all by default), the lock keys matched by `keys` (an ACL key pattern
 * such as `locks:*`): the commands the code sends for them, derived from its Lua sources and its
 * table of what it sends outside them, and the key patterns and channels they touch.
 */
export function aclGrants(features: readonly AclFeature[] = ACL_FEATURES, keys = '*'): AclGrants {
  const batch = batchCommands();
  const commands = new Set<string>();
  for (const feature of new Set<AclFeature>(['lock', ...features])) {
    for (const op of kOps[feature]) for (const command of batch.get(op) ?? []) commands.add(command);
    for (const script of kScripts[feature]) for (const command of luaCommands(script)) commands.add(command);
    for (const command of kSent[feature]) commands.add(command);
  }
  const patterns = new Set([keys, 'pipelock:queue:*']);
  if (features.includes('fencing') || features.includes('election')) patterns.add('pipelock:fence:*');
  // A force-release's marker beside each held key (src/engine/keys.ts): read by watchHeld and by
  // the refused renewal of any auto-extended lock (src/lifecycle/renewal.ts).
  patterns.add('pipelock:revoked:*');
  patterns.add('pipelock:probe');
  return { commands: [...commands].sort(), keys: [...patterns].map((p) => `%RW~${p}`), channels: ['&__redis__:invalidate'] };
}

/** A ready `ACL SETUSER` line: the grants and the `native` commands the server has (one it lacks cannot be granted). */
export function aclSetUser(user: string, grants: AclGrants, native: readonly string[] = []): string {
  const commands = [...grants.commands, ...native.map((c) => c.toLowerCase())].map((c) => `+${c}`);
  return ['ACL SETUSER', user, 'on', '>PASSWORD', 'resetkeys', 'resetchannels', '-@all', ...commands, ...grants.keys,
    ...grants.channels].join(' ');
}
