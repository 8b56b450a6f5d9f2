import { RedisClient } from '@redis/client';

// One client class for every probe: createClient() rebuilds it per distinct URL (~40 ms each).
const create = RedisClient.factory({});

function probe(url: string) {
  const client = create({ url, socket: { reconnectStrategy: false } });
  client.on('error', () => undefined); // a probe of a master a test killed is expected to fail
  return client;
}

export type Probe = ReturnType<typeof probe>;

/** Plain connections to each master for inspecting and tampering with keys behind pipelock's back. */
export async function connectAll(urls: readonly string[]): Promise<Probe[]> {
  return Promise.all(
    urls.map(async (url) => {
      const client = probe(url);
      await client.connect();
      return client;
    }),
  );
}

export async function closeAll(clients: readonly Probe[]): Promise<void> {
  await Promise.allSettled(clients.map((client) => (client.isOpen ? client.close() : Promise.resolve())));
}

/** GET key on every master (null where absent). */
export async function valuesOf(clients: readonly Probe[], key: string): Promise<(string | null)[]> {
  return Promise.all(clients.map((client) => client.get(key)));
}

/**
 * Calls of `command` (lower case, e.g. 'del') per master so far, those run inside scripts included
 * (INFO commandstats); without one, of every command but INFO.
 */
export async function commandCalls(clients: readonly Probe[], command?: string): Promise<number[]> {
  const infos = await Promise.all(clients.map((client) => client.info('commandstats')));
  return infos.map((info) => {
    let total = 0;
    for (const m of info.matchAll(/cmdstat_([^:]+):calls=(\d+)/g)) if (command === undefined ? m[1] !== 'info' : m[1] === command) total += Number(m[2]);
    return total;
  });
}

/** Polls `check` until it returns true or `ms` pass; for effects that have no event to await. */
export async function eventually(check: () => Promise<boolean> | boolean, ms = 2000, what = 'condition'): Promise<void> {
  const until = performance.now() + ms;
  while (!(await check())) {
    if (performance.now() > until) throw new Error(`${what} did not hold within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Waits until every master holds each of `keys`. An acquisition resolves at the quorum while its last SETs may still be
 * on the wire: a count taken before they land charges them to the code under test, and a waiter that reads the key
 * before they land finds it free there and wakes for an attempt that uses no retry (src/waiting/waiters.ts #read).
 */
export async function landed(clients: readonly Probe[], ...keys: string[]): Promise<void> {
  const held = async (key: string): Promise<number> => (await valuesOf(clients, key)).filter((v) => v !== null).length;
  await eventually(async () => (await Promise.all(keys.map(held))).every((n) => n === clients.length), 2000,
    `${keys.join(', ')} on every master`);
}
