/**
 * The RESP parsers the lean connection could use, on the replies pipelock gets (OK, integers, nil,
 * script reply arrays, an error now and then), 64 replies per chunk: redis-parser (ioredis'),
 * @redis/client's own Decoder (reachable only through its dist/ path, not a public export) and the lean
 * connection's reader (`lean`: the common replies read as constants, the rest by redis-parser). `--mix
 * steady` is the script-free path's replies alone (+OK and :1). Run under callgrind twice, `--chunks` N
 * and N/5, for instructions per reply (docs/decisions/0010).
 *
 *   valgrind --tool=callgrind --callgrind-out-file=/dev/null node --import tsx bench/profile/parsers.ts --parser redis-parser --chunks 20000
 */
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { Replies } from '../../src/transport/lean/replies.js';

const { values } = parseArgs({ options: { parser: { type: 'string', default: 'redis-parser' }, chunks: { type: 'string', default: '20000' }, mix: { type: 'string', default: 'all' } } });
const require = createRequire(import.meta.url);
const mixed = ['+OK\r\n', ':1\r\n', '$-1\r\n', '*4\r\n:1\r\n:0\r\n:1\r\n:1\r\n', ':0\r\n', '-NOSCRIPT No matching script.\r\n', '$3\r\nabc\r\n', ':1\r\n'];
const one = values.mix === 'steady' ? ['+OK\r\n', ':1\r\n'] : mixed;
const chunk = Buffer.from(Array.from({ length: 64 }, (_, i) => one[i % one.length]).join(''));
let replies = 0;
const onReply = (): void => { replies++; };
const onError = (): void => { replies++; };
let feed: (buffer: Buffer) => void;
if (values.parser === 'redis-parser') {
  type Parser = new (o: object) => { execute(b: Buffer): void };
  const RedisParser = require('redis-parser') as Parser;
  const parser = new RedisParser({ returnReply: onReply, returnError: onError, returnFatalError: onError });
  feed = (buffer) => { parser.execute(buffer); };
} else if (values.parser === 'lean') {
  const reader = new Replies({ returnReply: onReply, returnError: onError, returnFatalError: onError });
  feed = (buffer) => { reader.execute(buffer); };
} else {
  type Decoder = new (o: object) => { write(b: Buffer): void };
  const { Decoder: RespDecoder } = require('@redis/client/dist/lib/RESP/decoder') as { Decoder: Decoder };
  const decoder = new RespDecoder({ onReply, onErrorReply: onError, onPush: onReply, getTypeMapping: () => ({}) });
  feed = (buffer) => { decoder.write(buffer); };
}
for (let i = 0; i < Number(values.chunks); i++) feed(chunk);
console.log(JSON.stringify({ parser: values.parser, mix: values.mix, replies }));
