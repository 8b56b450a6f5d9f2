import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { Redis as Redis5 } from 'ioredis';
import { Redis as Redis6 } from 'ioredis6';
import { mastersSuite, probesEach } from '../helpers/masters.js';
import { FaultProxy } from '../helpers/proxy.js';
import { valuesOf } from '../helpers/redis.js';
import { timed } from '../helpers/timeout.js';
import { Redlock } from '../../src/index.js';
import type { IoredisClient } from '../../src/clients.js';

// The first lock of a new Redlock reaches every master (src/engine/opening.ts): the connections
// pipelock opens (ioredis duplicates, URLs) are waited for before the first writes go out, so
// that no master gets them late, after a quorum of faster ones decided.
const test = mastersSuite('first lock on every master', { count: 5, flushEach: true });

const probes = probesEach(test);

const TRIES = 30;

/** How many of `TRIES` fresh Redlocks' first locks were on fewer than every master when acquire resolved. */
async function short(make: () => Redlock): Promise<number> {
  let fewer = 0;
  for (let i = 0; i < TRIES; i++) {
    const redlock = make();
    try {
      const lock = await redlock.acquire([`first-${i}`], 10000);
      const values = await valuesOf(probes, `first-${i}`);
      if (!values.every((value) => value === lock.value)) fewer++;
      await lock.release();
    } finally {
      await redlock.quit({ keepClients: true });
    }
  }
  return fewer;
}

for (const [kind, make] of [['ioredis 5', (url: string) => new Redis5(url)], ['ioredis 6', (url: string) => new Redis6(url)]] as const) {
  test(`${kind}: ${TRIES} new Redlocks on ready clients, each acquiring at once: every first lock is on all 5 masters when it resolves`, timed(30000, async ({ masters }) => {
    const clients = masters.urls.map((url) => make(url) as unknown as IoredisClient);
    try {
      for (const client of clients) client.on('error', () => undefined);
      await Promise.all(clients.map((client) => new Promise((resolve) => client.once('ready', resolve))));
      assert.is(await short(() => new Redlock(clients)), 0);
    } finally {
      for (const client of clients) client.disconnect(false);
    }
  }));
}

test(`URLs: ${TRIES} new Redlocks acquiring at once: every first lock is on all 5 masters when it resolves`, timed(30000, async ({ masters }) => {
  assert.is(await short(() => new Redlock(masters.urls)), 0);
}));

test('ready() waits for every connection still opening, not only a quorum: two masters 150 ms slower to answer', timed(10000, async ({ masters }) => {
  const proxies = await Promise.all(masters.urls.map((url) => FaultProxy.start(url)));
  proxies[3]!.delayMs = 150;
  proxies[4]!.delayMs = 150;
  const redlock = new Redlock(proxies.map((proxy) => proxy.url));
  try {
    await redlock.ready();
    assert.equal([...redlock.clients].map((client) => (client as { isReady: boolean }).isReady), [true, true, true, true, true]);
  } finally {
    await redlock.quit();
    await Promise.all(proxies.map((proxy) => proxy.close()));
  }
}));

test.run();
