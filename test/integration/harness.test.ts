import '../helpers/setup.js';
import { RedisClient } from '@redis/client';
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import * as assert from 'uvu/assert';
import {
  MasterStartError,
  MasterStateError,
  RedisServerNotFoundError,
  startMasters,
  type LocalMaster,
} from '../../src/testing/masters.js';
import { mastersSuite } from '../helpers/masters.js';
import { FaultProxy } from '../helpers/proxy.js';
import { timed } from '../helpers/timeout.js';

// Faults injected by one test (stop, pause) are undone before the next, and every master starts empty.
const test = mastersSuite('harness', { count: 5, healEach: true, flushEach: true });

// One factory for every connection: createClient() rebuilds its command class (~40 ms) whenever
// the options, url included, differ from the previous call's.
const createClient = RedisClient.factory();
type Client = ReturnType<typeof createClient>;

async function connectTo(master: LocalMaster): Promise<Client> {
  const client = createClient({ url: master.url, socket: { reconnectStrategy: false } });
  client.on('error', () => undefined); // surfaced by the awaited calls instead
  await client.connect();
  return client;
}

async function withClient<R>(master: LocalMaster, fn: (client: Client) => Promise<R>): Promise<R> {
  const client = await connectTo(master);
  try {
    return await fn(client);
  } finally {
    client.destroy();
  }
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    assert.is((error as NodeJS.ErrnoException).code, 'ESRCH');
    return false;
  }
}

async function pathExists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

test('starts five masters on distinct free ports, each answering PING', timed(5_000, async ({ masters }) => {
  assert.is(masters.masters.length, 5);
  const ports = masters.masters.map((master) => master.port);
  assert.is(new Set(ports).size, 5);
  assert.not.ok(ports.includes(6379), 'never the shared Redis port');
  assert.equal(masters.urls, ports.map((port) => `redis://127.0.0.1:${port}`));
  assert.equal(masters.masters.map((master) => master.index), [0, 1, 2, 3, 4]);
  for (const master of masters.masters) {
    assert.ok(master.running);
    assert.not.ok(master.paused);
    assert.ok(processExists(master.pid!));
    assert.is(await withClient(master, (client) => client.ping()), 'PONG');
  }
}));

test('masters are independent: a key set on one is absent on the others', timed(5_000, async ({ masters }) => {
  const [first, ...others] = masters.masters;
  await withClient(first!, (client) => client.set('harness:key', 'one'));
  assert.is(await withClient(first!, (client) => client.get('harness:key')), 'one');
  for (const other of others) {
    assert.is(await withClient(other, (client) => client.get('harness:key')), null);
  }
}));

test('flush() empties a master', timed(5_000, async ({ masters }) => {
  const master = masters.masters[1]!;
  await withClient(master, (client) => client.mSet({ a: '1', b: '2', c: '3' }));
  assert.is(await withClient(master, (client) => client.dbSize()), 3);
  await master.flush();
  assert.is(await withClient(master, (client) => client.dbSize()), 0);
}));

test('stop() kills the process: pid gone, connections refused', timed(5_000, async ({ masters }) => {
  const master = masters.masters[2]!;
  const pid = master.pid!;
  await master.stop();
  assert.is(master.running, false);
  assert.is(master.pid, undefined);
  assert.is(processExists(pid), false);
  const refused = await connectTo(master).then(
    (client) => {
      client.destroy();
      return undefined;
    },
    (error: unknown) => error as NodeJS.ErrnoException,
  );
  assert.is(refused?.code, 'ECONNREFUSED');
  await master.stop(); // idempotent
  assert.throws(() => {
    master.pause();
  }, (error: unknown) => error instanceof MasterStateError && /master 2 .*not running/.test(error.message));
}));

test('restart() brings a master back empty on the same port', timed(5_000, async ({ masters }) => {
  const master = masters.masters[3]!;
  const { port } = master;
  const pid = master.pid!;
  await withClient(master, (client) => client.set('harness:survives', 'no'));
  await master.restart();
  assert.is(master.port, port);
  assert.is(master.running, true);
  assert.is.not(master.pid, pid);
  assert.is(processExists(pid), false);
  assert.is(await withClient(master, (client) => client.get('harness:survives')), null);
  assert.is(await withClient(master, (client) => client.dbSize()), 0);
}));

test('restart({ delayMs }) keeps the master down for the delay', timed(5_000, async ({ masters }) => {
  const master = masters.masters[4]!;
  const started = performance.now();
  const restarting = master.restart({ delayMs: 150 });
  assert.is(master.running, false);
  await restarting;
  assert.ok(performance.now() - started >= 150);
  assert.is(master.running, true);
  assert.is(await withClient(master, (client) => client.ping()), 'PONG');
}));

test('pause() silences a master; resume() lets the waiting PING through', timed(5_000, async ({ masters }) => {
  const master = masters.masters[0]!;
  const client = await connectTo(master);
  try {
    master.pause();
    assert.is(master.paused, true);
    const pong = client.ping();
    assert.is(await Promise.race([pong, delay(200, 'no answer within 200 ms')]), 'no answer within 200 ms');
    master.resume();
    assert.is(master.paused, false);
    assert.is(await pong, 'PONG');
  } finally {
    client.destroy();
  }
}));

test('close() stops every process and removes the temp dirs, idempotently', timed(10_000, async () => {
  const own = await startMasters({ count: 2 });
  const pids = own.masters.map((master) => master.pid!);
  const dirs = await Promise.all(
    own.masters.map((master) => withClient(master, async (client) => (await client.configGet('dir')).dir!)),
  );
  for (const dir of dirs) assert.ok(await pathExists(dir), `${dir} exists while running`);
  own.masters[1]!.pause(); // a paused server must not survive close() either
  await own.close();
  assert.equal(pids.map(processExists), [false, false]);
  for (const dir of dirs) assert.not.ok(await pathExists(dir), `${dir} removed`);
  assert.equal(own.masters.map((master) => [master.running, master.pid]), [[false, undefined], [false, undefined]]);
  await own[Symbol.asyncDispose](); // idempotent
  try {
    await own.masters[0]!.restart();
    assert.unreachable('restart after close resolved');
  } catch (error) {
    assert.instance(error, MasterStateError);
  }
}));

test('a missing binary rejects with RedisServerNotFoundError', timed(5_000, async () => {
  const redisServer = join(tmpdir(), 'pipelock-no-such-dir', 'redis-server');
  try {
    await startMasters({ count: 2, redisServer });
    assert.unreachable('startMasters resolved');
  } catch (error) {
    assert.instance(error, RedisServerNotFoundError);
    assert.is((error as RedisServerNotFoundError).code, 'ERR_REDIS_SERVER_NOT_FOUND');
    assert.is((error as RedisServerNotFoundError).redisServer, redisServer);
    assert.match((error as Error).message, 'apt-get install redis-server');
    assert.match((error as Error).message, 'PIPELOCK_REDIS_SERVER');
  }
}));

test('a server that cannot start rejects with the tail of its log', timed(5_000, async () => {
  try {
    await startMasters({ count: 2, extraArgs: ['--no-such-directive', 'x'] });
    assert.unreachable('startMasters resolved');
  } catch (error) {
    assert.instance(error, MasterStartError);
    const { code, logTail, message } = error as MasterStartError;
    assert.is(code, 'ERR_MASTER_START_FAILED');
    assert.match(logTail, 'Bad directive');
    assert.match(message, /exited before answering PING \(code 1\)/);
    assert.match(message, logTail);
  }
}));

test('the fault proxy keeps each direction in order when its delay drops while bytes wait', timed(5_000, async ({ masters }) => {
  const proxy = await FaultProxy.start(masters.urls[0]!);
  const client = createClient({ url: proxy.url });
  client.on('error', () => undefined);
  try {
    await client.connect();
    proxy.delayMs = 300;
    const first = client.sendCommand(['SET', 'order', 'first']);
    await delay(50);
    proxy.delayMs = 0;
    const second = client.sendCommand(['SET', 'order', 'second']);
    assert.equal(await Promise.all([first, second]), ['OK', 'OK']);
    assert.is(await client.sendCommand(['GET', 'order']), 'second', 'the later write overtook the earlier one');
  } finally {
    client.destroy();
    await proxy.close();
  }
}));

test.run();
