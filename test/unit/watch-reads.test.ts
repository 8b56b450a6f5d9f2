import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { UNKNOWN, Watch } from '../../src/watch/watch.js';

// The watch's bookkeeping of reads in flight against the pushes that arrive among their replies
// (src/watch/watch.ts). @redis/client decodes one socket read at once: each reply settles its
// command's promise (the read resumes in a microtask, later), while an invalidation push is emitted
// at once. So every push of that read reaches the watch before any of the reads it came with
// resumes, whatever its place among their replies: the client below delivers them that way. What
// Redis itself does (a read arms tracking, the next change is pushed once) is covered against
// real servers in test/integration/waiting.test.ts and handover.test.ts.
const test = suite('watch reads');

interface Pending {
  readonly args: readonly string[];
  resolve(value: unknown): void;
}

/** A connection whose replies and pushes the test hands out in the order it chooses. */
class ScriptedConnection {
  readonly isReady = true;
  readonly pending: Pending[] = [];
  #invalidate: ((key: Buffer | null) => void) | undefined;

  connect(): Promise<void> {
    return Promise.resolve();
  }

  sendCommand(args: readonly string[]): Promise<unknown> {
    return new Promise((resolve) => this.pending.push({ args, resolve }));
  }

  on(event: string, listener: (key: Buffer | null) => void): this {
    if (event === 'invalidate') this.#invalidate = listener;
    return this;
  }

  destroy(): void {}

  /** One socket read: the next `reads` reads answered with `value` (GET) and `pttl`, then `pushes` invalidations of `key`. */
  deliver(reads: number, value: string | null, pttl: number, pushes: number, key: string): void {
    for (let i = 0; i < reads; i++) {
      const [get, ttl] = this.pending.splice(0, 2);
      get!.resolve(value);
      ttl!.resolve(pttl);
    }
    for (let i = 0; i < pushes; i++) this.#invalidate!(Buffer.from(key));
  }
}

function watchOver(connection: ScriptedConnection, changes: [string | null, boolean][]): Watch {
  return new Watch(0, () => connection, (_index, key, present) => changes.push([key, present]), () => undefined);
}

test('a burst of reads answered around one change: every read that may have seen the key before it is told, not only the first to finish', async () => {
  const connection = new ScriptedConnection();
  const changes: [string | null, boolean][] = [];
  const watch = watchOver(connection, changes);
  // Five heads read the key one after the other (one per local turn of a lock passed on).
  const reads = Array.from({ length: 5 }, () => watch.read('hot', undefined));
  await Promise.resolve();
  // The first read found the key gone; the other four found a new holder's key; the push after
  // them in the same socket read spent the tracking their reads armed.
  connection.deliver(1, null, -2, 0, 'hot');
  connection.deliver(4, 'new-holder', 4_999, 1, 'hot');
  const results = await Promise.all(reads);
  assert.is(results[0], -2, 'the first read: absent');
  // Each of the others was in flight when the change was told: none may sleep on the key as
  // present, since no further push will come until it is read again.
  assert.ok(results.slice(1).every((r) => r < 0), `results ${results.join(', ')}`);
  assert.ok(changes.some(([key, present]) => key === 'hot' && present), `told as a release: ${JSON.stringify(changes)}`);
  watch.close();
});

test('a read that began after the push is not charged with it', async () => {
  const connection = new ScriptedConnection();
  const changes: [string | null, boolean][] = [];
  const watch = watchOver(connection, changes);
  const first = watch.read('k', undefined);
  await Promise.resolve();
  connection.deliver(1, 'a', 1_000, 1, 'k');
  assert.is(await first, -3, 'changed while in flight: unknown, and told');
  const second = watch.read('k', undefined);
  await Promise.resolve();
  connection.deliver(1, 'b', 2_000, 0, 'k');
  assert.is(await second, 2_000);
  assert.is(watch.present.has('k'), true);
  watch.close();
});

test('a key read present is answered from the watch until its next change: no command, the TTL counted down', async () => {
  const connection = new ScriptedConnection();
  const watch = watchOver(connection, []);
  const first = watch.read('k', undefined);
  await Promise.resolve();
  connection.deliver(1, 'holder', 5_000, 0, 'k');
  assert.is(await first, 5_000);
  const reading = watch.read('k', undefined);
  assert.is(connection.pending.length, 0, 'nothing sent');
  const again = await reading;
  assert.ok(again > 4_900 && again <= 5_000, `ttl ${again}`);
  // A change takes it out: the next read goes to the master, which arms tracking again.
  connection.deliver(0, null, 0, 1, 'k');
  const after = watch.read('k', undefined);
  assert.is(connection.pending.length, 2, 'read from the master');
  connection.deliver(1, 'holder', 3_000, 0, 'k');
  assert.is(await after, 3_000);
  // The caller's own token is never taken for a holder's, cached or not.
  const own = watch.read('k', 'holder');
  assert.is(connection.pending.length, 2, 'read from the master: the key holds the reader\'s own token');
  connection.deliver(1, 'holder', 2_000, 0, 'k');
  assert.is(await own, -2);
  watch.close();
});

test('closed, it stays closed: a read after close (a guard\'s or a waiter\'s, in flight at quit) opens no new connection', async () => {
  let opened = 0;
  const watch = new Watch(0, () => { opened++; return new ScriptedConnection(); }, () => undefined, () => undefined);
  // Its read stays in flight (this connection answers only when told): closed under it.
  void watch.read('k', undefined);
  assert.is(opened, 1);
  watch.close();
  const again = watch.read('k', undefined);
  const owners = watch.owners(['k']);
  watch.forget('q', 'm');
  // Opened again here, nobody would close it: it reconnected to stopped masters and kept the process alive.
  assert.is(opened, 1, 'a connection opened after close');
  assert.is(await again, UNKNOWN);
  assert.is(await owners, undefined);
});

test.run();
