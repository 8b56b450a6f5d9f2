/**
 * A node-redlock v5 program as its users write it in TypeScript: the v5 README's examples, its
 * Settings literal with v5's five fields, its exported types, both using() overloads and the error
 * event. test/package/consumer.test.ts compiles it against redlock 5's own types, then against
 * pipelock's packed types with only the import below changed (the lint reads it with the former).
 */
/* eslint-disable @typescript-eslint/only-throw-error, @typescript-eslint/require-await -- the v5 README's code as its users copy it */
import { Redis as Client } from 'ioredis';
import Redlock, {
  ExecutionError, ResourceLockedError, type ClientExecutionResult, type ExecutionResult, type ExecutionStats, type Lock,
  type RedlockAbortSignal, type Settings,
} from 'redlock';

const redisA = new Client({ host: 'a.redis.example.com', lazyConnect: true });
const redisB = new Client({ host: 'b.redis.example.com', lazyConnect: true });
const redisC = new Client({ host: 'c.redis.example.com', lazyConnect: true });

export const settings: Settings = {
  driftFactor: 0.01,
  retryCount: 10,
  retryDelay: 200,
  retryJitter: 200,
  automaticExtensionThreshold: 500,
};
export const partial: Partial<Settings> = { retryCount: 3 };

export const redlock = new Redlock([redisA, redisB, redisC], settings);

redlock.on('error', (error) => {
  if (error instanceof ResourceLockedError) return;
  console.error(error);
});

async function something(): Promise<void> {
  await Promise.resolve();
}

export async function withUsing(senderId: string, recipientId: string): Promise<number> {
  const first = await redlock.using([senderId, recipientId], 5000, async (signal: RedlockAbortSignal) => {
    await something();
    if (signal.aborted) throw signal.error;
    return 1;
  });
  const second = await redlock.using([senderId], 5000, { retryCount: 5 }, async (signal) => {
    if (signal.aborted) throw signal.error;
    return 2;
  });
  return first + second;
}

export async function direct(): Promise<ExecutionResult> {
  let lock: Lock = await redlock.acquire(['a'], 5000);
  try {
    await something();
    lock = await lock.extend(5000);
    lock = await redlock.extend(lock, 5000, partial);
    const expires: number = lock.expiration;
    const value: string = lock.value;
    console.log(expires, lock.resources.join(), value);
  } finally {
    await lock.release();
  }
  return redlock.release(lock, partial);
}

export async function stats(result: ExecutionResult): Promise<number> {
  const all: ExecutionStats[] = await Promise.all(result.attempts);
  let against = 0;
  for (const attempt of all) against += attempt.votesAgainst.size + attempt.membershipSize - attempt.quorumSize - attempt.votesFor.size;
  return against;
}

export function voted(result: ClientExecutionResult): string {
  return result.vote === 'for' ? String(result.value) : result.error.message;
}

export async function failed(): Promise<number> {
  try {
    await redlock.acquire(['b'], 1000);
    return 0;
  } catch (error) {
    if (error instanceof ExecutionError) return (await Promise.all(error.attempts)).length;
    throw error;
  }
}

export async function close(): Promise<void> {
  const held: Settings = redlock.settings;
  console.log(held.retryCount, redlock.clients.size);
  await redlock.quit();
}
