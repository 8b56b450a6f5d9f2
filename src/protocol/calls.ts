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

/** The command at the line a script error names: Redis 7.0 does not name it, the line of pipelock's source does. */
export function scriptCommandAt(message: string): string | undefined {
  const where = /script: ([0-9a-f]{40}), on @user_script:(\d+)/.exec(message);
  const line = where === null ? undefined : scriptBySha(where[1])?.source.split('\n')[Number(where[2]) - 1];
  return line === undefined ? undefined : /\bp?call\(\s*'([A-Za-z]+)'/.exec(line)?.[1]?.toLowerCase();
}

/** `SCRIPT LOAD source`: the reply is the script's SHA. */
export function scriptLoadArgs(script: Script): string[] {
  return ['SCRIPT', 'LOAD', script.source];
}

/** One script call's words for ops[from, to): RELEASE_SCRIPT alone, LEAN_SCRIPT when they fit, else BATCH_SCRIPT. */
export function callArgs(ops: readonly OpArgs[], from: number, to: number): string[] {
  if (to - from === 1) {
    const op = ops[from]!;
    if (op.opcode === OP_RELEASE && op.keys.length === 1) return releaseArgs(op.keys[0]!, op.token);
  }
  return leanArgs(ops, from, to) ?? batchArgs(BATCH_SHA, ops, from, to);
}

/** Whether `reply` answers `count` operations: one integer each, LEAN_SCRIPT's `count`, or a lone operation's integer. */
export function isCallReply(reply: unknown, count: number): boolean {
  return reply === count || (count === 1 && reply === 0) || (Array.isArray(reply) && reply.length === count);
}

/** What operation `i` of a call of `count` operations answered, from a reply isCallReply accepted. */
export function answerAt(reply: unknown, count: number, i: number): unknown {
  return typeof reply === 'number' ? (reply === count ? 1 : reply) : (reply as readonly unknown[])[i];
}

/** One answer per operation (for a transport merging several calls' replies); undefined when `reply` does not answer `count`. */
export function answersOf(reply: unknown, count: number): unknown[] | undefined {
  if (reply === count) return new Array<number>(count).fill(1);
  if (count === 1 && reply === 0) return [0];
  return Array.isArray(reply) && reply.length === count ? reply as unknown[] : undefined;
}

/** A lone single-key acquisition's words (src/protocol/native.ts); here too, where the other calls' words are. */
export { setNxArgs } from './native.js';
