// node-redlock v5's shape on ioredis clients, as a v5 program runs after changing only its import.
// Run it: REDIS_URLS=redis://…,… node --conditions=pipelock-source --import tsx examples/ioredis.ts
import { Redis } from 'ioredis';
import Redlock, { ResourceLockedError } from 'pipelock';

const urls = process.env.REDIS_URLS?.split(',') ?? ['redis://10.0.0.1:6379', 'redis://10.0.0.2:6379', 'redis://10.0.0.3:6379'];
const clients = urls.map((url) => new Redis(url));
const redlock = new Redlock(clients, { retryCount: 0 });
redlock.on('error', (error) => {
  if (!(error instanceof ResourceLockedError)) console.error(error);
});

try {
  await redlock.using(['invoices:7'], 5_000, async (signal) => {
    const refused = await redlock.acquire(['invoices:7'], 5_000).catch((error: unknown) => error);
    console.log(`second acquire refused: ${refused instanceof ResourceLockedError}`);
    if (signal.aborted) throw signal.error ?? new Error('lock lost');
  });
  const lock = await redlock.acquire(['invoices:7'], 5_000);
  const result = await lock.release();
  console.log(`released; attempts: ${result.attempts.length}`);
} finally {
  await redlock.quit();                              // quits the ioredis clients too, as v5 did
  console.log(`clients closed: ${clients.every((client) => client.status === 'end')}`);
}
