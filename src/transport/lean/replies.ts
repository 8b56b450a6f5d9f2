import { createRequire } from 'node:module';

export interface ReplyHandlers {
  returnReply(reply: unknown): void;
  returnError(error: Error): void;
  returnFatalError(error: Error): void;
}
interface Parser {
  /**
   * null between replies; a Buffer while a reply cut by a chunk's end waits for the rest. Not a documented field of
   * redis-parser 3.0 (its last release, 2017): test/unit/lean-replies.test.ts's differential run fails if it changes.
   */
  buffer: Buffer | null;
  execute(chunk: Buffer): void;
  reset(): void;
}
// The RESP parser ioredis uses (docs/decisions/0010-lean-connection.md); CommonJS, hence require.
const RedisParser = createRequire(import.meta.url)('redis-parser') as new (handlers: ReplyHandlers) => Parser;

// The whole replies a lock's steady state is made of: SET NX PX and SET IFEQ answer +OK (or $-1), DELIFEQ :1 (or :0).
const kNone = 0;
const kOk = 1;
const kZero = 2;
const kOne = 3;
const kNil = 4;
const kValue = [undefined, 'OK', 0, 1, null] as const;
const kLength = [0, 5, 4, 4, 5] as const;

/** Which common reply starts at `at` (kNone: another shape, or one the chunk cuts short). */
function common(chunk: Buffer, at: number): number {
  const left = chunk.length - at;
  if (left < 4) return kNone;
  switch (chunk[at]) {
    case 0x2b: // +OK\r\n
      return left >= 5 && chunk[at + 1] === 0x4f && chunk[at + 2] === 0x4b && chunk[at + 3] === 0x0d && chunk[at + 4] === 0x0a
        ? kOk
        : kNone;
    case 0x3a: // :0\r\n or :1\r\n, one digit only
      if (chunk[at + 2] !== 0x0d || chunk[at + 3] !== 0x0a) return kNone;
      return chunk[at + 1] === 0x30 ? kZero : chunk[at + 1] === 0x31 ? kOne : kNone;
    case 0x24: // $-1\r\n
      return left >= 5 && chunk[at + 1] === 0x2d && chunk[at + 2] === 0x31 && chunk[at + 3] === 0x0d && chunk[at + 4] === 0x0a
        ? kNil
        : kNone;
    default:
      return kNone;
  }
}

/**
 * A connection's reply reader: the common whole replies at a chunk's head are read here as constants, the rest (and
 * all of it while a reply cut by a chunk waits) by redis-parser, with the same values. redis-parser makes a string for
 * each +OK (`toString` per reply, about 0.3 µs per cycle of 5 masters): docs/decisions/0010-lean-connection.md, "The
 * common replies".
 */
export class Replies {
  readonly #parser: Parser;
  readonly #handlers: ReplyHandlers;

  constructor(handlers: ReplyHandlers) {
    this.#handlers = handlers;
    this.#parser = new RedisParser(handlers);
  }

  execute(chunk: Buffer): void {
    let at = 0;
    // Only between replies: otherwise the chunk's head continues the parser's reply.
    if (this.#parser.buffer === null) {
      for (let kind = common(chunk, 0); kind !== kNone; kind = common(chunk, at)) {
        at += kLength[kind]!;
        this.#handlers.returnReply(kValue[kind]);
      }
    }
    if (at < chunk.length) this.#parser.execute(at === 0 ? chunk : chunk.subarray(at));
  }

  reset(): void {
    this.#parser.reset();
  }
}
