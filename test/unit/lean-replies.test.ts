import { createRequire } from 'node:module';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Replies, type ReplyHandlers } from '../../src/transport/lean/replies.js';
import { seeded } from '../helpers/seeded.js';

// The lean connection's reply reader (src/transport/lean/replies.ts) reads the common replies itself and leaves the
// rest to redis-parser: whatever the replies and however the socket cuts them, it must give what redis-parser alone
// gives, in the same order.
const test = suite('lean replies');
const RedisParser = createRequire(import.meta.url)('redis-parser') as new (handlers: ReplyHandlers) => {
  execute(chunk: Buffer): void;
};

type Seen = [kind: 'reply' | 'error' | 'fatal', value: unknown];

function recorder(seen: Seen[]): ReplyHandlers {
  return {
    returnReply: (reply) => { seen.push(['reply', reply]); },
    returnError: (error) => { seen.push(['error', error.message]); },
    returnFatalError: (error) => { seen.push(['fatal', error.message]); },
  };
}

function read(reader: { execute(chunk: Buffer): void }, chunks: Buffer[]): void {
  for (const chunk of chunks) reader.execute(chunk);
}

// Replies the engine meets, the common ones and their look-alikes (a longer integer, a simple string that starts OK).
const kShapes = [
  '+OK\r\n', ':1\r\n', ':0\r\n', '$-1\r\n',
  ':10\r\n', ':-1\r\n', ':2\r\n', '+OKAY\r\n', '+QUEUED\r\n', '$2\r\nOK\r\n', '$-10\r\n',
  '-ERR unknown command\r\n', '-NOSCRIPT No matching script\r\n', '*2\r\n+OK\r\n:1\r\n', '*-1\r\n', '*0\r\n',
  '$5\r\n+OK\r\n\r\n', '*3\r\n$-1\r\n:0\r\n$3\r\ntok\r\n', ':123456789\r\n',
];

function cut(wire: Buffer, next: () => number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0; at < wire.length;) {
    const size = 1 + Math.floor(next() * (next() < 0.3 ? 4 : 40));
    chunks.push(wire.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

test('the common replies as values: OK, 0, 1, null', () => {
  const seen: Seen[] = [];
  read(new Replies(recorder(seen)), [Buffer.from('+OK\r\n:1\r\n:0\r\n$-1\r\n')]);
  assert.equal(seen, [['reply', 'OK'], ['reply', 1], ['reply', 0], ['reply', null]]);
});

test('a reply cut by a chunk: the rest, though it reads as :1, is the rest ($6 ab | :1 CRLF CRLF)', () => {
  const seen: Seen[] = [];
  read(new Replies(recorder(seen)), [Buffer.from('$6\r\nab'), Buffer.from(':1\r\n\r\n+OK\r\n')]);
  assert.equal(seen, [['reply', 'ab:1\r\n'], ['reply', 'OK']]);
});

test('what redis-parser alone gives, for 3,000 streams of mixed replies cut at random', () => {
  const next = seeded(20261201);
  for (let round = 0; round < 3000; round++) {
    const parts: string[] = [];
    const count = 1 + Math.floor(next() * 30);
    // Mostly the common ones, as a lock's steady state is.
    for (let i = 0; i < count; i++) parts.push(kShapes[Math.floor(next() * (next() < 0.6 ? 4 : kShapes.length))]!);
    const wire = Buffer.from(parts.join(''));
    const chunks = cut(wire, next);
    const expected: Seen[] = [];
    const actual: Seen[] = [];
    read(new RedisParser(recorder(expected)), chunks);
    read(new Replies(recorder(actual)), chunks);
    assert.equal(actual, expected, `round ${round}: ${JSON.stringify(chunks.map(String))}`);
  }
});

test('a protocol error after common replies is fatal, as with redis-parser alone', () => {
  const seen: Seen[] = [];
  const expected: Seen[] = [];
  const chunks = [Buffer.from('+OK\r\n:1\r\n?bad\r\n')];
  read(new Replies(recorder(seen)), chunks);
  read(new RedisParser(recorder(expected)), chunks);
  assert.equal(seen, expected);
  assert.equal(seen.slice(0, 2), [['reply', 'OK'], ['reply', 1]]);
  assert.is(seen[2]![0], 'fatal');
});

test.run();
