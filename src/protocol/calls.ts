import { LEAN_SCRIPT, LEAN_SHA, leanArgs } from './lean-script.js';
import { BATCH_SCRIPT, BATCH_SHA, batchArgs } from './batch-script.js';
import { OP_RELEASE, type OpArgs } from './opcodes.js';
import { RELEASE_SCRIPT, RELEASE_SHA, releaseArgs } from './release-script.js';

/** A Lua script pipelock runs with EVALSHA. */
export interface Script {
  readonly source: string;
  readonly sha: string;
}

/** Every script, loaded on each master at connect and again after NOSCRIPT (src/engine/script-replay.ts). */
export const SCRIPTS: readonly Script[] = [
  { source: LEAN_SCRIPT, sha: LEAN_SHA },
  { source: BATCH_SCRIPT, sha: BATCH_SHA },
  { source: RELEASE_SCRIPT, sha: RELEASE_SHA },
];

export function scriptBySha(sha: string | undefined): Script | undefined {
  return SCRIPTS.find((script) => script.sha === sha);
}

export function scriptBySource(source: string | undefined): Script | undefined {
  return SCRIPTS.find((script) => script.source === source);
}

/**
 * The command at the line a script error names (`script: <sha>, on @user_script:<line>`): Redis 7.0
 * refuses a command inside a script without naming it, so the line of pipelock's own source does.
 */
export function scriptCommandAt(message: string): string | undefined {
  const where = /script: ([0-9a-f]{40}), on @user_script:(\d+)/.exec(message);
  const line = where === null ? undefined : scriptBySha(where[1])?.source.split('\n')[Number(where[2]) - 1];
  return line === undefined ? undefined : /\bp?call\(\s*'([A-Za-z]+)'/.exec(line)?.[1]?.toLowerCase();
}

/** `SCRIPT LOAD source`: the reply is the script's SHA. */
export function scriptLoadArgs(script: Script): string[] {
  return ['SCRIPT', 'LOAD', script.source];
}

/**
 * The words of one script call for ops[from, to): RELEASE_SCRIPT for a lone single-key release,
 * LEAN_SCRIPT when they fit it (single-key acquire, extend and release sharing a ttl: what nearly
 * every call carries), BATCH_SCRIPT otherwise.
 */
export function callArgs(ops: readonly OpArgs[], from: number, to: number): string[] {
  if (to - from === 1) {
    const op = ops[from]!;
    if (op.opcode === OP_RELEASE && op.keys.length === 1) return releaseArgs(op.keys[0]!, op.token);
  }
  return leanArgs(ops, from, to) ?? batchArgs(BATCH_SHA, ops, from, to);
}

/**
 * Whether `reply` answers a call of `count` operations: one integer per operation, or — LEAN_SCRIPT
 * when every operation answered 1 — the integer `count` itself; a lone operation's call may answer
 * its integer alone (RELEASE_SCRIPT: 1 or 0).
 */
export function isCallReply(reply: unknown, count: number): boolean {
  return reply === count || (count === 1 && reply === 0) || (Array.isArray(reply) && reply.length === count);
}

/** What operation `i` of a call of `count` operations answered, from a reply isCallReply accepted. */
export function answerAt(reply: unknown, count: number, i: number): unknown {
  return typeof reply === 'number' ? (reply === count ? 1 : reply) : (reply as readonly unknown[])[i];
}

/** One answer per operation (for a transport that merges the replies of several calls); undefined when `reply` does not answer `count` operations. */
export function answersOf(reply: unknown, count: number): unknown[] | undefined {
  if (reply === count) return new Array<number>(count).fill(1);
  if (count === 1 && reply === 0) return [0];
  return Array.isArray(reply) && reply.length === count ? reply as unknown[] : undefined;
}

/** A lone single-key acquisition's words (src/protocol/native.ts); here too, where the other calls' words are. */
export { setNxArgs } from './native.js';
