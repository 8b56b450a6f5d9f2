import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { Redis, type RedisOptions } from 'ioredis';
import { mastersSuite } from '../helpers/masters.js';
import { closeAll, connectAll, eventually, valuesOf, type Probe } from '../helpers/redis.js';
import { FaultProxy } from '../helpers/proxy.js';
import { timed } from '../helpers/timeout.js';
import { fencedWrite, InvalidArgumentError, QuorumUnreachableError, Redlock } from '../../src/index.js';

// ioredis' own traps (see src/transport/ioredis.ts): what the user's client settings must not change.
const test = mastersSuite('ioredis clients', { count: 3, healEach: true, flushEach: true });

let probes: Probe[] = [];
let clients: Redis[] = [];
test.before.each(async ({ masters }) => {
  probes = await connectAll(masters.urls);
});
test.after.each(async () => {
  await Promise.allSettled(clients.map((client) => (client.status === 'end' ? Promise.resolve() : client.quit())));
  clients = [];
  await closeAll(probes);
});

async function connected(urls: readonly string[], options: RedisOptions = {}): Promise<Redis[]> {
  clients = urls.map((url) => new Redis(url, options));
  for (const client of clients) client.on('error', () => undefined); // the app's own listener
  await Promise.all(clients.map((client) => new Promise((resolve) => client.once('ready', resolve))));
  return clients;
}

test('keys carry the client\'s keyPrefix, as node-redlock v5 (evalsha) wrote them; odd client settings change nothing', timed(5000, async ({ masters }) => {
  const redlock = new Redlock(await connected(masters.urls, { keyPrefix: 'app:', stringNumbers: true, enableAutoPipelining: true, commandTimeout: 50 }));
  try {
    const lock = await redlock.acquire(['orders:42'], 5000, { fencing: true });
    assert.equal(lock.resources, ['orders:42']);
    // Decided at the second vote; the third master applies it a moment later.
    await eventually(async () => (await valuesOf(probes, 'app:orders:42')).every((v) => v === lock.value), 1000, 'every master holds app:orders:42');
    assert.equal(await valuesOf(probes, 'orders:42'), [null, null, null]);
    assert.type(lock.fence, 'number');
    const longer = await lock.extend(5000);
    await longer.release();
    await eventually(async () => (await valuesOf(probes, 'app:orders:42')).every((v) => v === null), 1000, 'released everywhere');
  } finally {
    await redlock.quit();
  }
}));

test('masters whose clients disagree on keyPrefix are refused: a lock would name different keys', () => {
  const a = new Redis({ lazyConnect: true, keyPrefix: 'a:' });
  const b = new Redis({ lazyConnect: true, port: 1 });
  try {
    const error = (() => { try { new Redlock([a, b]); } catch (e) { return e; } })();
    assert.instance(error, InvalidArgumentError);
    assert.is((error as InvalidArgumentError).argument, 'clients[1]');
  } finally {
    a.disconnect();
    b.disconnect();
  }
});

test('an acquisition in flight when its connection drops is not written again after the reconnect', timed(8000, async ({ masters }) => {
  // ioredis' default (autoResendUnfulfilledCommands) would replay the SET after the attempt gave up.
  const proxies = await Promise.all(masters.urls.map((url) => FaultProxy.start(url)));
  try {
    const redlock = new Redlock(await connected(proxies.map((proxy) => proxy.url)), { retryCount: 0, nodeTimeout: 100 });
    await redlock.ready();
    for (const proxy of proxies) proxy.delayMs = 150;
    const attempt = redlock.acquire(['replayed'], 5000).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 30));
    for (const proxy of proxies) {
      proxy.drop();
      proxy.delayMs = 0;
    }
    assert.instance(await attempt, QuorumUnreachableError);
    await redlock.ready(3000);
    await new Promise((resolve) => setTimeout(resolve, 200)); // a replay would have landed by now
    assert.equal(await valuesOf(probes, 'replayed'), [null, null, null]);
    await redlock.quit();
  } finally {
    await Promise.all(proxies.map((proxy) => proxy.close()));
  }
}));

test("pipelock adds no listener to the user's client and sends nothing on it", timed(5000, async ({ masters }) => {
  const given = await connected(masters.urls);
  const before = given.map((client) => [client.listenerCount('error'), client.listenerCount('ready')]);
  const sent: unknown[] = [];
  const originals = given.map((client) => client.sendCommand.bind(client));
  given.forEach((client, i) => { client.sendCommand = ((command: unknown) => { sent.push(command); return originals[i]!(command as Parameters<typeof client.sendCommand>[0]); }); });
  const redlock = new Redlock(given);
  await (await redlock.acquire(['quiet'], 1000)).release();
  assert.equal(given.map((client) => [client.listenerCount('error'), client.listenerCount('ready')]), before);
  assert.equal(sent, []);
  await redlock.quit({ keepClients: true });
  assert.ok(given.every((client) => client.status === 'ready'), 'keepClients leaves them open');
}));

test('fencedWrite takes an ioredis store client, stringNumbers and all', timed(5000, async ({ masters }) => {
  const [store] = await connected([masters.urls[0]!], { stringNumbers: true });
  assert.is(await fencedWrite(store!, 'fenced', 7, 'new'), true);
  assert.is(await fencedWrite(store!, 'fenced', 6, 'stale'), false);
  assert.equal(await probes[0]!.hGetAll('fenced'), { fence: '7', value: 'new' });
}));

test.run();
