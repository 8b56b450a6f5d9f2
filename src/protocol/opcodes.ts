/**
 * The operations of the batch script, one row each: ARGV count, how a reply counts, whether its quorum is a
 * release's, what undoes a grant. Everything that reads an operation's shape reads it here.
 */
/** Acquire: all keys set (SET NX PX) or none. */

/** Acquire: all keys set (SET NX PX) or none. */
export const OP_ACQUIRE = 'A';
/** Extend: owner-checked PEXPIRE of every key, or none. */
export const OP_EXTEND = 'E';
/** Release: owner-checked DEL of each key. */
export const OP_RELEASE = 'R';
/** Acquire plus fencing counters: keys are the m lock keys, then their m counter keys. */
export const OP_FENCED_ACQUIRE = 'F';
/** Raise fencing counters to at least the token (the token slot holds the target). */
export const OP_RAISE = 'X';
/** INCR a counter and set its TTL (run-once attempt counting). */
export const OP_INCR = 'I';
/** Owner-checked: replace the lock's token by the done-marker, with a new TTL (run-once). */
export const OP_MARK_DONE = 'D';
/** Whether the key holds the done-marker (run-once). */
export const OP_IS_DONE = 'Q';
/** Semaphore: take permit slot `extra` of the slot keys if free (src/kinds/semaphore.ts). */
export const OP_PERMIT = 'P';
/** Semaphore permit: owner-checked re-arm of the slot key (keys: slot, release counter). */
export const OP_PERMIT_EXTEND = 'T';
/** Semaphore permit: owner-checked delete of the slot key, then INCR the release counter (which waiters watch). */
export const OP_PERMIT_RELEASE = 'V';
/** Read lock: keys are readers, writer, writer-waiting (src/kinds/rwlock.ts). */
export const OP_READ = 'r';
/** Owner-checked: re-arm a reader's entry in the readers set. */
export const OP_READ_EXTEND = 'e';
/** Owner-checked: remove a reader's entry from the readers set. */
export const OP_READ_RELEASE = 'u';
/** Write lock: keys are readers, writer, writer-waiting; `extra` is the waiting marker's ttl. */
export const OP_WRITE = 'W';
/** Acquire at the gate, in turn: keys are the lock keys, then the gate's turns (src/waiting/gate.ts); `extra` is "bypass grace id". */
export const OP_GATED = 'G';
/** Owner-checked: the keys pass from the token in `extra` to the op's token, with a new TTL (src/waiting/handover.ts). */
export const OP_HANDOVER = 'H';
/** Force-release: m lock keys, then their m markers; each lock key DELeted unchecked, its marker SET to the reason for ttl. */
export const OP_FORCE = 'Z';

/** Owner-checked write of an election's record and history (src/protocol/election-ops.ts): ttl holds the record, `extra` the change. */
export const OP_LEADER_WRITE = 'L';
/** Owner-checked erase of an election's record; with the history key, the change in `extra` is withdrawn from it too. */
export const OP_LEADER_ERASE = 'K';
/** Read: an election's lock and record values. */
export const OP_LEADER_READ = 'M';
/** Read: an election's history of changes. */
export const OP_HISTORY_READ = 'Y';
/** Read: each key's type and TTL (src/engine/foreign.ts). */
export const OP_KEYS_READ = 'J';

export type OpCode = typeof OP_GATED | typeof OP_HANDOVER | typeof OP_ACQUIRE | typeof OP_EXTEND | typeof OP_RELEASE
  | typeof OP_FENCED_ACQUIRE | typeof OP_RAISE | typeof OP_INCR | typeof OP_MARK_DONE | typeof OP_IS_DONE
  | typeof OP_PERMIT | typeof OP_PERMIT_EXTEND | typeof OP_PERMIT_RELEASE | typeof OP_READ | typeof OP_READ_EXTEND
    | typeof OP_READ_RELEASE | typeof OP_WRITE
  | typeof OP_LEADER_WRITE | typeof OP_LEADER_ERASE | typeof OP_LEADER_READ | typeof OP_HISTORY_READ
    | typeof OP_KEYS_READ | typeof OP_FORCE;

/** What the coalescer needs of one operation to put it into a call. */
export interface OpArgs {
  readonly opcode: OpCode;
  readonly keys: readonly string[];
  readonly token: string;
  /** PX / PEXPIRE argument in ms, already a string; '0' for release. */
  readonly ttlArg: string;
  /** P: the slot asked for; W: the waiting marker's ttl; '' for the others. */
  readonly extra: string;
}

/** How a master's integer reply to an operation counts (src/engine/attempt.ts reads it). */
export const VOTE_ALL_KEYS = 0;
/** 1 is a grant, anything else a refusal. */
export const VOTE_ONE = 1;
/** Any positive reply is a grant, and the largest one is the attempt's value (a counter). */
export const VOTE_POSITIVE = 2;
/** A grant while the reply (the counter before) is below the target; the largest is kept. */
export const VOTE_BELOW_TARGET = 3;
/** The target (slot + 1) is a grant; another positive reply is a hint, kept in the attempt's counts. */
export const VOTE_TARGET = 4;
export type VoteRule = typeof VOTE_ALL_KEYS | typeof VOTE_ONE | typeof VOTE_POSITIVE | typeof VOTE_BELOW_TARGET | typeof VOTE_TARGET;

/** The owner-checked operation that deletes what a grant set: its code and keys. */
export interface Undo {
  readonly opcode: OpCode;
  readonly keys: readonly string[];
}

export interface OpRow {
  /** ARGV the operation takes: its code, its token, then a ttl and an extra for some. */
  readonly args: 2 | 3 | 4;
  readonly vote: VoteRule;
  /** Its quorum is decided as a release's (src/engine/quorum.ts decideRelease). */
  readonly release: boolean;
  /** What undoes a grant answered with `value` (> 0), for a reply that came too late to count; undefined: nothing to undo. */
  readonly undo?: (keys: readonly string[], target: number, value: number) => Undo | undefined;
}

const releaseAll = (keys: readonly string[]): Undo => ({ opcode: OP_RELEASE, keys });

export const OPS: { readonly [C in OpCode]: OpRow } = Object.freeze({
  A: { args: 3, vote: VOTE_ALL_KEYS, release: false, undo: releaseAll },
  E: { args: 3, vote: VOTE_ALL_KEYS, release: false },
  R: { args: 2, vote: VOTE_ALL_KEYS, release: true },
  F: { args: 3, vote: VOTE_POSITIVE, release: false, undo: releaseAll },
  X: { args: 2, vote: VOTE_BELOW_TARGET, release: false },
  I: { args: 3, vote: VOTE_POSITIVE, release: false },
  D: { args: 3, vote: VOTE_ONE, release: false },
  Q: { args: 2, vote: VOTE_ONE, release: false },
  // Any positive reply other than the target is a hint: nothing was taken.
  P: { args: 4, vote: VOTE_TARGET, release: false,
    undo: (keys, target, value) => (value === target ? { opcode: OP_RELEASE, keys: [keys[value - 1]!] } : undefined) },
  T: { args: 3, vote: VOTE_ONE, release: false },
  V: { args: 2, vote: VOTE_ONE, release: true },
  r: { args: 3, vote: VOTE_ONE, release: false, undo: (keys) => ({ opcode: OP_READ_RELEASE, keys: [keys[0]!] }) },
  e: { args: 3, vote: VOTE_ONE, release: false },
  u: { args: 2, vote: VOTE_ONE, release: true },
  W: { args: 4, vote: VOTE_ONE, release: false, undo: (keys) => ({ opcode: OP_RELEASE, keys: [keys[1]!] }) },
  G: { args: 4, vote: VOTE_ONE, release: false, undo: (keys) => ({ opcode: OP_RELEASE, keys: keys.slice(0, -1) }) },
  H: { args: 4, vote: VOTE_ALL_KEYS, release: false, undo: releaseAll },
  L: { args: 4, vote: VOTE_ONE, release: false },
  K: { args: 4, vote: VOTE_ONE, release: false },
  // Reads answer data, taken as a vote for (src/engine/read.ts).
  M: { args: 2, vote: VOTE_ONE, release: false },
  Y: { args: 2, vote: VOTE_ONE, release: false },
  J: { args: 2, vote: VOTE_ONE, release: false },
  // 1 + the lock keys deleted: every answer counts, the largest says whether any master held them.
  Z: { args: 3, vote: VOTE_POSITIVE, release: false },
});

// The table read by code point: the hot path (every reply of every operation) asks these per
// operation, and a keyed load on the table's string keys was a megamorphic lookup each time.
const kArgs = new Uint8Array(128);
const kVote = new Uint8Array(128);
const kRelease = new Uint8Array(128);
for (const code of Object.keys(OPS) as OpCode[]) {
  const row = OPS[code];
  const at = code.charCodeAt(0);
  kArgs[at] = row.args;
  kVote[at] = row.vote;
  kRelease[at] = row.release ? 1 : 0;
}

/** How many ARGV the operation takes (its row's `args`). */
export function argsOf(opcode: OpCode): number {
  return kArgs[opcode.charCodeAt(0)]!;
}

/** How a reply to the operation counts (its row's `vote`). */
export function voteOf(opcode: OpCode): VoteRule {
  return kVote[opcode.charCodeAt(0)] as VoteRule;
}

/** Operations whose quorum is decided as a release's. */
export function isRelease(opcode: OpCode): boolean {
  return kRelease[opcode.charCodeAt(0)] === 1;
}

/** The owner-checked undo of a late grant with reply `value` (src/engine/master.ts): its keys and op, or undefined. */
export function undoOf(opcode: OpCode, keys: readonly string[], target: number, value: number): Undo | undefined {
  return OPS[opcode].undo?.(keys, target, value);
}

/** The batch script's line stepping over one operation's ARGV, generated from the table so Lua agrees with the builder. */
export function argvStepLua(): string {
  const codes = (n: number): string => (Object.keys(OPS) as OpCode[]).filter((code) => OPS[code].args === n)
                  .map((code) => `op == '${code}'`).join(' or ');
  return `if ${codes(2)} then a = a + 2 elseif ${codes(4)} then a = a + 4 else a = a + 3 end`;
}
