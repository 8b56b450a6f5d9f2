import type { Batch } from './coalescer.js';
import { UnexpectedReplyError } from '../errors.js';
import { answerAt, isCallReply } from '../protocol/calls.js';
import { nativeReply } from '../protocol/native.js';

/**
 * How one call's reply settles its operations' votes on master `node`: a native command's 'OK', 1, 0
 * or nil; a script's integer per operation; a routed transport's per-operation error. Anything else
 * is an UnexpectedReplyError, reported once per call.
 */
export function settleReply(batch: Batch, reply: unknown, node: number, name: string, report: (error: Error) => void): void {
  const ops = batch.ops;
  if (batch.native) {
    ops[0]!.settle(node, nativeReply(reply, ops[0]!.keys.length) ?? unexpected(name, report, reply));
    return;
  }
  if (!isCallReply(reply, ops.length)) {
    const error = unexpected(name, report, reply);
    for (const op of ops) op.settle(node, error);
    return;
  }
  let reported: unknown;
  for (let i = 0; i < ops.length; i++) {
    const value = answerAt(reply, ops.length, i);
    if (typeof value === 'number') {
      ops[i]!.settle(node, value);
    } else if (value instanceof Error) {
      // A routed transport's per-operation failure (one shard's call failed, the others' did not).
      if (value !== reported) report(value);
      reported = value;
      ops[i]!.settle(node, value);
    } else if (!ops[i]!.answer(node, value)) {
      ops[i]!.settle(node, unexpected(name, report, value));
    }
  }
}

/** A reply the protocol does not allow, reported (a function of its own: no closure per call on the hot path). */
export function unexpected(name: string, report: (error: Error) => void, value: unknown): Error {
  const error = new UnexpectedReplyError(name, value);
  report(error);
  return error;
}
