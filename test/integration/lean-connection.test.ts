import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { mastersSuite, probesEach } from '../helpers/masters.js';
import { CutProxy } from '../helpers/cut-proxy.js';
import { eventually } from '../helpers/redis.js';
import { timed } from '../helpers/timeout.js';
import { once } from 'node:events';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { createClient } from '@redis/client';
import { Redlock } from '../../src/index.js';
import { internals } from '../../src/redlock.js';
import { leanOptions } from '../../src/transport/lean/options.js';
import { LeanTransport } from '../../src/transport/lean/transport.js';
import type { Sink } from '../../src/transport/transport.js';

// pipelock's own connection (src/transport/lean/): replies matched to commands in order, with no
// promise per command, through cuts, resets and error replies mid-pipeline.
const test = mastersSuite('lean connection', { count: 1, flushEach: true });
const probes = probesEach(test);
const givenNode = (url: string) => createClient({ url, name: 'given-node' });
type GivenNode = ReturnType<typeof givenNode>;

/** Records what each token got, and how many times. */
class Tally implements Sink<number> {
  readonly replies = new Map<number, unknown>();
  readonly errors = new Map<number, Error>();
  readonly times = new Map<number, number>();

  replied(token: number, reply: unknown): void {
    this.replies.set(token, reply);
    this.times.set(token, (this.times.get(token) ?? 0) + 1);
  }

  failed(token: number, error: Error): void {
    this.errors.set(token, error);
    this.times.set(token, (this.times.get(token) ?? 0) + 1);
  }
}

function open(url: string, errors: Error[] = []): LeanTransport {
  return LeanTransport.open(url, 'lean', leanOptions(url, { socket: { reconnectStrategy: 20 } }), undefined, (error) => errors.push(error));
}

async function ready(transport: LeanTransport): Promise<void> {
  await eventually(() => transport.isReady, 5000, 'the lean connection ready');
}

const payload = (i: number): string => `${i}:${'x'.repeat(90 + (i % 7))}`;
const replyBytes = (i: number): number => `$${payload(i).length}\r\n${payload(i)}\r\n`.length;

test('a reply cut mid-buffer, then a reset: the replies before the cut settle with their own values, every other command fails, each once; it reconnects', timed(20000, async ({ masters }) => {
  const proxy = await CutProxy.start(masters.urls[0]!);
  const errors: Error[] = [];
  const transport = open(proxy.url, errors);
  try {
    await ready(transport);
    const whole = 57;
    let budget = 0;
    for (let i = 0; i < whole; i++) budget += replyBytes(i);
    proxy.budget = budget + 9; // 9 bytes into reply `whole`
    const tally = new Tally();
    const n = 300;
    for (let i = 0; i < n; i++) transport.post(['ECHO', payload(i)], tally, i);
    await eventually(() => tally.times.size === n, 5000, 'every command settled');
    for (let i = 0; i < n; i++) assert.is(tally.times.get(i), 1, `command ${i} settled once`);
    for (let i = 0; i < whole; i++) assert.is(tally.replies.get(i), payload(i), `command ${i} got its own reply`);
    for (let i = whole; i < n; i++) assert.ok(tally.errors.has(i), `command ${i} failed`);
    assert.ok(errors.length >= 1, "the drop was said as 'error'");
    await ready(transport);
    assert.is(await transport.send(['ECHO', 'again']), 'again', 'the connection came back');
  } finally {
    await transport.close(100);
    await proxy.close();
  }
}));

test('ready means the server answered: a listener that accepts and never replies leaves the connection not ready (its PING unanswered)', timed(10000, async () => {
  const accepted: Socket[] = [];
  const silent = createServer((socket) => { accepted.push(socket); });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const url = `redis://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  const transport = open(url);
  try {
    await eventually(() => accepted.length === 1, 5000, 'the connection accepted');
    const heard = await new Promise<string>((resolve) => accepted[0]!.once('data', (chunk: Buffer) => { resolve(chunk.toString()); }));
    assert.is(heard, '*1\r\n$4\r\nPING\r\n');
    assert.is(transport.isReady, false);
    accepted[0]!.write('+PONG\r\n');
    await ready(transport);
  } finally {
    await transport.close(100);
    for (const socket of accepted) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  }
}));

test('error replies mid-pipeline settle only their own command', timed(10000, async ({ masters }) => {
  const transport = open(masters.urls[0]!);
  try {
    await ready(transport);
    await transport.send(['SET', 'text', 'abc']);
    const tally = new Tally();
    const commands = [['ECHO', 'a'], ['INCR', 'text'], ['ECHO', 'b'], ['NOSUCHCOMMAND'], ['EVALSHA', 'f'.repeat(40), '0'], ['ECHO', 'c']];
    commands.forEach((args, i) => { transport.post(args, tally, i); });
    await eventually(() => tally.times.size === commands.length, 5000, 'every command settled');
    assert.equal([0, 2, 5].map((i) => tally.replies.get(i)), ['a', 'b', 'c']);
    assert.match(tally.errors.get(1)!.message, /^ERR value is not an integer/);
    assert.match(tally.errors.get(3)!.message, /^ERR unknown command/);
    assert.match(tally.errors.get(4)!.message, /^NOSCRIPT/);
    assert.ok([...tally.times.values()].every((times) => times === 1), 'each settled once');
  } finally {
    await transport.close(100);
  }
}));

test('the handshake: an ACL user and database from the URL, a name from clientOptions; a wrong password is an error, never ready', timed(10000, async ({ masters }) => {
  const probe = probes[0]!;
  await probe.sendCommand(['ACL', 'SETUSER', 'lean-user', 'on', '>s3cret', '~*', '+@all']);
  const base = new URL(masters.urls[0]!);
  const url = `redis://lean-user:s3cret@${base.host}/3`;
  const transport = LeanTransport.open(url, 'lean', leanOptions(url, { name: 'pipelock-lean' }), undefined, () => undefined);
  const errors: Error[] = [];
  const wrong = `redis://lean-user:nope@${base.host}`;
  const refused = LeanTransport.open(wrong, 'lean', leanOptions(wrong, { socket: { reconnectStrategy: false } }), undefined, (error) => errors.push(error));
  try {
    await ready(transport);
    const info = await transport.send(['CLIENT', 'INFO']) as string;
    assert.match(info, /name=pipelock-lean /);
    assert.match(info, /db=3 /);
    assert.match(info, /user=lean-user /);
    await eventually(() => errors.length > 0, 5000, 'the refusal said');
    assert.match(errors[0]!.message, /^WRONGPASS/);
    assert.is(refused.isReady, false);
  } finally {
    await transport.close(100);
    await refused.close(100);
    await probe.sendCommand(['ACL', 'DELUSER', 'lean-user']);
  }
}));

test('Redlock on a URL whose replies are cut mid-buffer: every acquisition settles once, the granted ones as their own replies said', timed(30000, async ({ masters }) => {
  const proxy = await CutProxy.start(masters.urls[0]!);
  // Uncoalesced, each acquisition is a SET NX PX of its own, answered '+OK\r\n' (5 bytes).
  const redlock = new Redlock([proxy.url], { retryCount: 0, nodeTimeout: 2000, coalesce: false, connection: 'lean' });
  redlock.on('error', () => undefined);
  try {
    await redlock.ready();
    proxy.budget = 5 * 37 + 2;
    const settled = new Array<number>(100).fill(0);
    const outcomes = await Promise.all(Array.from({ length: 100 }, (_, i) => redlock.acquire([`cut-${i}`], 10000).then(
      (lock) => { settled[i]!++; return lock; },
      () => { settled[i]!++; return undefined; },
    )));
    assert.ok(settled.every((n) => n === 1), 'each acquisition settled once');
    const held = outcomes.filter((lock) => lock !== undefined);
    assert.is(held.length, 37, 'the replies before the cut granted their own acquisitions');
    await redlock.ready();
    assert.equal(outcomes.map((lock) => lock !== undefined), Array.from({ length: 100 }, (_, i) => i < 37), 'the first 37 in order');
    await Promise.all(held.map((lock) => lock.release()));
    // The acquisitions whose replies were cut are unknown to pipelock (as on @redis/client): they end at their TTL.
    const left = await probes[0]!.sendCommand<string[]>(['KEYS', 'cut-*']);
    for (const key of left) {
      assert.ok(Number(key.slice(4)) >= 37, `${key} is not a released lock`);
      assert.ok(Number(await probes[0]!.sendCommand(['PTTL', key])) > 0, `${key} has its TTL`);
    }
  } finally {
    await redlock.quit();
    await proxy.close();
  }
}));

test("connection: 'lean' beside given ioredis and @redis/client clients: opened from their options, the clients stay the user's", timed(15000, async ({ masters }) => {
  const url = masters.urls[0]!;
  const io = new Redis(url, { connectionName: 'given-io', keyPrefix: 'app:' });
  const node = givenNode(url);
  node.on('error', () => undefined);
  try {
    await node.connect();
    // pipelock opens its own lean connection and does not wait for the user's: the user's client is
    // ready here first, so its status at the end says what quit() did to it (CI's loaded run read
    // 'connect' there, the handshake of SETNAME still out, without this).
    if (io.status !== 'ready') await once(io, 'ready');
    await check(io, node);
  } finally {
    // A client left connecting to masters that are gone keeps the file's process alive.
    io.disconnect();
    if (node.isOpen) await node.close();
  }
}));

/** Each given client beside a lean Redlock; quit({ keepClients: true }) leaves both ready. */
async function check(io: Redis, node: GivenNode): Promise<void> {
  for (const [given, name] of [[io, 'given-io'], [node, 'given-node']] as const) {
    const redlock = new Redlock([given], { retryCount: 0, connection: 'lean' });
    await redlock.ready();
    assert.ok(internals(redlock).masters.nodes[0]!.transport instanceof LeanTransport, 'a lean transport');
    assert.equal([...redlock.clients], [given], 'clients holds the given client');
    const lock = await redlock.acquire(['beside'], 10_000);
    const key = name === 'given-io' ? 'app:beside' : 'beside';
    assert.is(await probes[0]!.get(key), lock.value, `${key} holds the lock`);
    const list = await probes[0]!.sendCommand<string>(['CLIENT', 'LIST']);
    assert.is(list.split('\n').filter((line) => line.includes(` name=${name} `)).length, 2, `the user's and pipelock's connections named ${name}`);
    await lock.release();
    await redlock.quit({ keepClients: true });
    assert.is(await probes[0]!.get(key), null);
  }
  assert.is(io.status, 'ready', 'keepClients kept the ioredis client');
  assert.ok(node.isReady, 'keepClients kept the @redis/client client');
}

test.run();
