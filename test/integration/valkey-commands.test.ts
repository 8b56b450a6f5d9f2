import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { createClient } from '@redis/client';
import { mastersSuite, probesEach } from '../helpers/masters.js';
import { rejection } from '../helpers/reject.js';
import { timed } from '../helpers/timeout.js';
import { valkeyServer } from '../helpers/valkey.js';

// Pins the native Valkey 9 commands pipelock means to use in place of its scripts: a conditional
// SET (extend) and a conditional delete (release), and that the delete tells client-side caching,
// since a release must wake the waiters that read the key. Always Valkey, whatever the tier.
const test = mastersSuite('valkey-commands', { count: 1, flushEach: true, redisServer: valkeyServer() });

const probes = probesEach(test);
const send = <T>(args: string[]): Promise<T> => probes[0]!.sendCommand<T>(args);

/** INFO server's fields of the one master. */
async function serverInfo(): Promise<Map<string, string>> {
  const info = await send<string>(['INFO', 'server']);
  return new Map(info.split('\r\n').filter((line) => line.includes(':')).map((line) => line.split(':', 2) as [string, string]));
}

/** [major, minor] of valkey_version; fails on a server that is not Valkey. */
async function valkeyVersion(): Promise<[number, number]> {
  const version = (await serverInfo()).get('valkey_version');
  assert.ok(version !== undefined, 'INFO server has no valkey_version: not a Valkey server');
  const [major = NaN, minor = NaN] = version.split('.').map(Number);
  return [major, minor];
}

test('the server is Valkey 9 or later (INFO keeps redis_version for compatibility)', timed(5000, async () => {
  const info = await serverInfo();
  assert.is(info.get('server_name'), 'valkey');
  const [major] = await valkeyVersion();
  assert.ok(major >= 9, `valkey_version ${info.get('valkey_version') ?? ''} is below 9`);
  assert.match(info.get('redis_version') ?? '', /^\d+\.\d+\.\d+$/);
}));

test('SET k v IFEQ match PX ms sets only when the value matches, and never creates a missing key', timed(5000, async () => {
  await send(['SET', 'k', 'v1']);
  assert.is(await send(['SET', 'k', 'v2', 'IFEQ', 'v1', 'PX', '5000']), 'OK');
  assert.is(await send(['GET', 'k']), 'v2');
  const pttl = await send<number>(['PTTL', 'k']);
  assert.ok(pttl > 0 && pttl <= 5000, `PTTL ${pttl} is not the PX just set`);

  assert.is(await send(['SET', 'k', 'v3', 'IFEQ', 'v1', 'PX', '9000']), null);
  assert.is(await send(['GET', 'k']), 'v2');
  assert.ok(await send<number>(['PTTL', 'k']) <= 5000, 'a SET IFEQ that did not match changed the TTL');

  assert.is(await send(['SET', 'missing', 'v', 'IFEQ', 'v', 'PX', '5000']), null);
  assert.is(await send(['EXISTS', 'missing']), 0);
}));

test('DELIFEQ k v deletes only a matching value (1, else 0) and refuses a non-string with WRONGTYPE', timed(5000, async () => {
  await send(['SET', 'k', 'v']);
  assert.is(await send(['DELIFEQ', 'k', 'other']), 0);
  assert.is(await send(['EXISTS', 'k']), 1);
  assert.is(await send(['DELIFEQ', 'k', 'v']), 1);
  assert.is(await send(['EXISTS', 'k']), 0);
  assert.is(await send(['DELIFEQ', 'k', 'v']), 0);

  await send(['SADD', 's', 'm']);
  assert.match((await rejection(send(['DELIFEQ', 's', 'm']))).message, /^WRONGTYPE /);
  assert.is(await send(['EXISTS', 's']), 1);
}));

test('DELEX is absent before Valkey 9.2 and present from it', timed(5000, async () => {
  const [major, minor] = await valkeyVersion();
  const expected = major > 9 || (major === 9 && minor >= 2);
  const [info] = await send<unknown[]>(['COMMAND', 'INFO', 'DELEX']);
  assert.is(info !== null, expected, `COMMAND INFO DELEX on ${major}.${minor}`);
  if (!expected) assert.match((await rejection(send(['DELEX', 'k']))).message, /^ERR unknown command 'delex'/i);
}));

test('DELIFEQ and SET IFEQ that change a key tell a RESP3 tracking connection that read it; those that do not match tell nothing', timed(5000, async ({ masters }) => {
  const tracker = createClient({ url: masters.urls[0]!, RESP: 3, emitInvalidate: true, socket: { reconnectStrategy: false } });
  const told: string[] = [];
  tracker.on('invalidate', (key: Buffer | null) => told.push(key === null ? '(all)' : key.toString()));
  await tracker.connect();
  try {
    // A push is queued on the tracker's connection while the other command runs, so it is parsed
    // before the reply to the tracker's next PING: no timers needed to see it or its absence.
    const after = async (args: string[], reply: unknown): Promise<string[]> => {
      assert.is(await send(args), reply, args.join(' '));
      await tracker.ping();
      return told.splice(0);
    };
    await send(['SET', 'k', 'v']);
    assert.is(await tracker.get('k'), 'v'); // arms tracking of k, once
    assert.equal(await after(['DELIFEQ', 'k', 'other'], 0), []);
    assert.equal(await after(['SET', 'k', 'x', 'IFEQ', 'other'], null), []);
    assert.equal(await after(['DELIFEQ', 'k', 'v'], 1), ['k']);

    await send(['SET', 'k', 'v']);
    assert.is(await tracker.get('k'), 'v');
    assert.equal(await after(['SET', 'k', 'w', 'IFEQ', 'v', 'PX', '5000'], 'OK'), ['k']);
  } finally {
    tracker.destroy();
  }
}));

test.run();
