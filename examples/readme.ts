import { setTimeout as work } from 'node:timers/promises';
import { Redlock, ResourceLockedError } from 'pipelock';

// Independent Redis masters: URLs, or @redis/client / ioredis clients. quit() closes them all.
const urls = process.env.REDIS_URLS?.split(',') ?? ['redis://10.0.0.1:6379', 'redis://10.0.0.2:6379', 'redis://10.0.0.3:6379'];
const redlock = new Redlock(urls, { retryCount: 3 });

try {
  // Held once a quorum (floor(N/2)+1 masters) granted it within its validity.
  const lock = await redlock.acquire(['orders:42'], 10_000);
  try {
    console.log(`holding ${lock.resources.join()} for ${lock.validity.toFixed(0)} ms more`);
    const longer = await lock.extend(10_000);        // a new Lock with fresh validity
    const result = await longer.release();           // resolves once a quorum deleted the keys
    await result.complete();                         // optional: every master's answer
    console.log(`released on ${result.released} of ${urls.length} masters`);
  } catch (error) {
    await lock.release();
    throw error;
  }

  // Or let pipelock renew the lock while the routine runs; `signal` aborts if it is lost.
  await redlock.using(['report'], 5_000, async (signal) => {
    await work(100);                                 // the routine's work
    signal.throwIfAborted();                         // the lock was lost: stop before writing
    console.log('report written under the lock');
  });

  // Or `await using` (TypeScript >= 5.2, tsx, esbuild): released when the scope ends, thrown or not.
  {
    await using held = await redlock.acquire(['orders:43'], 10_000);
    console.log(`holding ${held.resources.join()} until the end of this block`);
  }
} catch (error) {
  if (error instanceof ResourceLockedError) console.log(`busy: ${error.code}`);
  else throw error;
} finally {
  await redlock.quit();                              // closes every connection; { keepClients: true } keeps clients you passed
}
