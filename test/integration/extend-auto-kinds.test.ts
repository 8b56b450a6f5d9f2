import '../helpers/setup.js';
import { setTimeout as delay } from 'node:timers/promises';
import { Redis } from 'ioredis';
import * as assert from 'uvu/assert';
import { userClients, type ClientKind } from '../helpers/client-kinds.js';
import { mastersSuite } from '../helpers/masters.js';
import { closeAll, connectAll } from '../helpers/redis.js';
import { timed } from '../helpers/timeout.js';
import { Redlock } from '../../src/index.js';

// The combination matrix's cell "extend() on an auto-extended lock", once per client kind: a shorter
// extend() is renewed before it runs out, a longer one is kept by the renewals after it.
const test = mastersSuite('extend() of an auto-extended lock, per client kind', { count: 3, flushEach: true });

interface Made {
  readonly redlock: Redlock;
  /** The key the masters see for a resource. */
  readonly key: (resource: string) => string;
  readonly close: () => Promise<void>;
}

const kKinds: Record<string, (urls: readonly string[]) => Promise<Made>> = {
  'URLs': (urls) => Promise.resolve({ redlock: new Redlock(urls), key: (r) => r, close: () => Promise.resolve() }),
  ...Object.fromEntries((['@redis/client', 'ioredis 6', 'iovalkey'] as const satisfies readonly ClientKind[]).map((kind) => [kind, async (urls: readonly string[]) => {
    const users = await userClients(kind, urls);
    return { redlock: new Redlock(users.clients), key: (r: string) => r, close: () => users.close() };
  }])),
  'ioredis 5 with keyPrefix app:': async (urls) => {
    const clients = urls.map((url) => new Redis(url, { keyPrefix: 'app:' }));
    for (const client of clients) client.on('error', () => undefined);
    await Promise.all(clients.map((client) => new Promise((resolve) => client.once('ready', resolve))));
    return { redlock: new Redlock(clients), key: (r) => `app:${r}`, close: async () => { await Promise.allSettled(clients.map((c) => c.quit())); } };
  },
};

for (const [kind, make] of Object.entries(kKinds)) {
  test(kind, timed(10_000, async ({ masters }) => {
    const made = await make(masters.urls);
    const probes = await connectAll(masters.urls);
    try {
      const lock = await made.redlock.acquire(['cell'], 3000, { autoExtend: true });
      await lock.extend(1200);
      await delay(1500);
      assert.is(lock.signal!.aborted, false, `lost after a shorter extend(): ${String(lock.signal!.reason)}`);
      await lock.extend(8000);
      await delay(1000);
      const left = await Promise.all(probes.map((probe) => probe.pTTL(made.key('cell'))));
      assert.ok(left.every((ttl) => ttl > 6000), `PTTL ${left.join(', ')} ms 1 s after extend(8000)`);
      // Decided at a quorum: the slowest master's delete may still be on its way (a loaded CI run saw it).
      await (await lock.release()).complete();
      assert.equal(await Promise.all(probes.map((probe) => probe.exists(made.key('cell')))), [0, 0, 0]);
    } finally {
      await closeAll(probes);
      await made.redlock.quit();
      await made.close();
    }
  }));
}

test.run();
