import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { Redlock } from '../../src/index.js';

/** What a producer is told: the masters, how many locks to take, and a prefix for their keys. */
export interface ProducerJob {
  readonly urls: readonly string[];
  readonly count: number;
  readonly prefix: string;
}

/**
 * Takes `count` locks on distinct keys from the masters and releases them: the tokens the client
 * made, in order. Run as a worker thread (workerData) or a child process (argv, JSON on stdout) by
 * test/integration/tokens.test.ts, so that each token comes from a fresh module instance.
 */
export async function produceTokens(job: ProducerJob): Promise<string[]> {
  // A generous budget: five producers start at once on a small machine, and this is about tokens.
  const redlock = new Redlock(job.urls, { retryCount: 3, nodeTimeout: 2_000 });
  const tokens: string[] = [];
  try {
    for (let i = 0; i < job.count; i += 250) {
      const locks = await Promise.all(Array.from({ length: Math.min(250, job.count - i) }, (_, j) => redlock.acquire([`${job.prefix}:${i + j}`], 10_000)));
      tokens.push(...locks.map((lock) => lock.value));
      await Promise.all(locks.map((lock) => lock.release()));
    }
  } finally {
    await redlock.quit();
  }
  return tokens;
}

if (!isMainThread && parentPort !== null) {
  parentPort.postMessage(await produceTokens(workerData as ProducerJob));
} else if (process.argv[2] === '--child') {
  process.stdout.write(JSON.stringify(await produceTokens(JSON.parse(process.argv[3]!) as ProducerJob)));
}
