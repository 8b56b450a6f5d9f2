import { scriptCommandAt } from '../protocol/calls.js';
import type { OpCode } from '../protocol/opcodes.js';
import { OP_ACQUIRE, OP_EXTEND, OP_FENCED_ACQUIRE, OP_GATED, OP_HANDOVER, OP_RELEASE, OP_INCR, OP_IS_DONE, OP_MARK_DONE, OP_PERMIT,
  OP_PERMIT_EXTEND, OP_PERMIT_RELEASE, OP_RAISE, OP_READ, OP_READ_EXTEND, OP_READ_RELEASE, OP_WRITE,
  OP_LEADER_WRITE, OP_LEADER_ERASE, OP_LEADER_READ, OP_HISTORY_READ } from '../protocol/opcodes.js';

/**
 * What a master's error reply means for a lock, by its leading word (Redis's error prefix). Those
 * that can heal are retried on the schedule; those that cannot (a permission, a key of another
 * type, a command the server lacks, a cluster node given as a standalone master) fail the call.
 */
export type MasterErrorKind =
  | 'readonly' | 'loading' | 'busy' | 'oom' | 'clusterdown' | 'tryagain' | 'masterdown' | 'noscript'
  | 'noperm' | 'noscripting' | 'wrongtype' | 'unknown-command' | 'moved' | 'ask' | 'auth'
  | 'unavailable' | 'timeout' | 'other';

const PREFIXES: ReadonlyMap<string, MasterErrorKind> = new Map([
  ['READONLY', 'readonly'], ['LOADING', 'loading'], ['BUSY', 'busy'], ['OOM', 'oom'],
  ['CLUSTERDOWN', 'clusterdown'], ['TRYAGAIN', 'tryagain'], ['MASTERDOWN', 'masterdown'], ['NOSCRIPT', 'noscript'],
  ['NOPERM', 'noperm'], ['WRONGTYPE', 'wrongtype'], ['MOVED', 'moved'], ['ASK', 'ask'],
  ['NOAUTH', 'auth'], ['WRONGPASS', 'auth'],
]);

/** The kinds no retry can heal: the call fails at once once they leave no quorum possible. */
const PERMANENT: ReadonlySet<MasterErrorKind> = new Set(['noperm', 'noscripting', 'wrongtype', 'unknown-command', 'moved', 'auth']);

export function errorKind(error: Error): MasterErrorKind {
  const code = (error as { code?: unknown }).code;
  if (code === 'ERR_PIPELOCK_NODE_UNAVAILABLE' || code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'EPIPE')
    return 'unavailable';
  if (code === 'ERR_PIPELOCK_NODE_TIMEOUT' || code === 'ERR_PIPELOCK_NODE_STALLED') return 'timeout';
  if (code === 'ERR_PIPELOCK_NO_SCRIPTING') return 'noscripting';
  if (code === 'ERR_PIPELOCK_MISCONFIGURED') return (error as { reason?: unknown }).reason === 'moved' ? 'moved' : 'other';
  const message = error.message;
  const space = message.indexOf(' ');
  const word = space === -1 ? message : message.slice(0, space);
  const kind = PREFIXES.get(word);
  if (kind !== undefined) return kind;
  if (word === 'ERR') {
    if (message.startsWith('ERR unknown command') || message.startsWith('ERR unknown subcommand')) return 'unknown-command';
    // An ACL refusal raised inside a script (redis.call on a key the user may not touch).
    if (message.includes("can't access at least one of the keys")) return 'noperm';
    // A command refused inside a script (Redis 7.0 words it so, without naming the command).
    if (message.includes("can't run this command or subcommand")) return 'noperm';
  }
  return 'other';
}

/**
 * Whether no retry can heal `kind` on a member. MOVED from a standalone master says it is a cluster
 * node (a misconfiguration); from a Redis Cluster member (`routed`) it is a slot moving as its client
 * ran out of redirections, as ASK always is: both heal once the migration ends.
 */
export function isPermanent(kind: MasterErrorKind, routed = false): boolean {
  return PERMANENT.has(kind) && !(routed && kind === 'moved');
}

/** What an operation's keys beyond the resource names are for, to name them in a permission error. */
export function purposeOf(opcode: OpCode): string {
  switch (opcode) {
    case OP_FENCED_ACQUIRE:
    case OP_RAISE:
      return 'the lock keys and their fencing counters (pipelock:fence:<resource>, for fencing: true)';
    case OP_GATED:
      return 'the lock key and its waiting queue at the gate (pipelock:queue:<resource>, for wake-ups)';
    case OP_INCR:
      return "run-once's attempt counter (<jobKey>:attempts:<windowEnd>)";
    case OP_MARK_DONE:
    case OP_IS_DONE:
      return "run-once's run key and done marker (<jobKey>:run:<windowEnd>)";
    case OP_PERMIT:
    case OP_PERMIT_EXTEND:
    case OP_PERMIT_RELEASE:
      return "a semaphore's permit keys and release counter (<resource>:permit:<n>, <resource>:permits-released)";
    case OP_READ:
    case OP_READ_EXTEND:
    case OP_READ_RELEASE:
    case OP_WRITE:
      return "a read/write lock's keys (<resource>:readers, :writer, :writer-waiting)";
    default:
      return 'the lock keys';
  }
}

/** The lock feature, as the caller names it, that needs a script in an operation sent to a member without scripting. */
export function featureOf(opcode: OpCode, keys: readonly string[]): string {
  switch (opcode) {
    case OP_ACQUIRE:
      return keys.length > 1 ? 'a lock on several resources (all of their keys or none)' : 'a lock';
    case OP_EXTEND:
      return keys.length > 1 ? 'extending a lock on several resources' : 'extending a lock without SET … IFEQ (Valkey 8.1+, Redis 8.4+)';
    case OP_RELEASE:
      return keys.length > 1 ? 'releasing a lock on several resources'
        : 'releasing a lock without DELIFEQ (Valkey 9.0+) or DELEX (Redis 8.4+, Valkey 9.2+)';
    case OP_FENCED_ACQUIRE:
    case OP_RAISE:
      return 'fencing tokens (fencing: true)';
    case OP_INCR:
    case OP_MARK_DONE:
    case OP_IS_DONE:
      return 'runOnce';
    case OP_PERMIT:
    case OP_PERMIT_EXTEND:
    case OP_PERMIT_RELEASE:
      return 'a semaphore';
    case OP_READ:
    case OP_READ_EXTEND:
    case OP_READ_RELEASE:
    case OP_WRITE:
      return 'a read/write lock';
    case OP_GATED:
      return 'waiting in line at the gate';
    case OP_HANDOVER:
      return 'the handover to a waiter';
    case OP_LEADER_WRITE:
    case OP_LEADER_ERASE:
    case OP_LEADER_READ:
    case OP_HISTORY_READ:
      return 'leader election';
    default:
      return 'this operation';
  }
}

/** What a refusal of `kind` means and what to change, for MisconfigurationError. */
export function explain(kind: MasterErrorKind, error: Error, master: string, opcode: OpCode,
  keys: readonly string[]): { message: string; fix: string } {
  const purpose = purposeOf(opcode);
  const listed = keys.map((key) => JSON.stringify(key)).join(', ');
  switch (kind) {
    case 'noperm': {
      const command = /run the '([^']+)' command/.exec(error.message)?.[1] ?? scriptCommandAt(error.message);
      if (command !== undefined) {
        const scripting = /^(evalsha|eval|script\|load|evalsha_ro|eval_ro)$/.test(command);
        return {
          message: `master ${master} does not let this ACL user run '${command}' (${error.message})`,
          fix: scripting
            ? 'pipelock runs multi-key and owner-checked operations as Lua scripts: grant them to the user (ACL SETUSER <user> '
              + '+@scripting, or +evalsha +eval +script|load)'
            : `grant the command to the user (ACL SETUSER <user> +${command})`,
        };
      }
      return {
        message: `master ${master} does not let this ACL user access ${purpose}: ${listed} (${error.message})`,
        fix: 'allow those keys in the user\'s key patterns (ACL SETUSER <user> ~<pattern> …); pipelock\'s own keys all start with '
          + '"pipelock:" (~pipelock:*), the others are named after your resources (docs/deployments.md, "TLS, credentials and ACL users")',
      };
    }
    case 'noscripting': {
      const feature = (error as { feature?: string }).feature ?? 'this operation';
      const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
      const engine = /Could not find scripting engine/.test(cause)
        ? 'load the Lua engine on the server (Valkey 9.1+: it is a module, unloaded here), or '
        : '';
      return {
        message: `master ${master} runs no scripts for this user${cause}, and ${feature} needs a Lua script`,
        fix: engine
          + 'grant scripting to the user (ACL SETUSER <user> +@scripting, or +evalsha +script|load), or keep to what runs without scripts: '
          + 'single-key locks without fencing, on servers with SET … IFEQ and DELIFEQ or DELEX (Valkey 9.0+, Redis 8.4+; '
          + 'docs/deployments.md, "Valkey, Redis 8 and the script-free path")',
      };
    }
    case 'wrongtype':
      return {
        message: `on master ${master} a key of ${purpose} holds another type of value: ${listed} (${error.message})`,
        fix: 'the key is not pipelock\'s (application data, or another library\'s): use resource names nothing else writes',
      };
    case 'unknown-command':
      return {
        message: `master ${master} does not know a command pipelock sends (${error.message})`,
        fix: 'pipelock needs EVALSHA and SCRIPT LOAD (scripting), or SET … IFEQ with DELIFEQ or DELEX for script-free single-key locks: '
          + 'point it at a Redis or Valkey server, not a proxy that lacks them',
      };
    case 'moved':
      // Found by the connect probe (src/engine/capability.ts), the error already names the master and the fix.
      if ((error as { code?: unknown }).code === 'ERR_PIPELOCK_MISCONFIGURED') return explainMoved(master, CLUSTER_ENABLED);
      return explainMoved(master, `it answered ${error.message.split(' ')[0]!} for ${listed}`);
    default:
      return {
        message: `master ${master} refused the connection's credentials (${error.message})`,
        fix: 'check the username and password (the URL, or clientOptions)',
      };
  }
}

/** How the connect probe (src/engine/capability.ts) knows a cluster node. */
export const CLUSTER_ENABLED = 'its INFO says cluster_enabled:1';

/** A Redis Cluster node given as a standalone master: how it showed (`evidence`), and the fix. */
export function explainMoved(master: string, evidence: string): { message: string; fix: string } {
  return {
    message: `master ${master} is a Redis Cluster node, not a standalone master: ${evidence}`,
    fix: `give the cluster as one member: { cluster: ['redis://${master}'] } or a cluster client (createCluster(), ioredis Cluster) in the `
      + `API, redis+cluster://${master} with the CLI`,
  };
}
