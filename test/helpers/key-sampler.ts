/**
 * A separate process that reads lock keys on every master while the test's own event loop is
 * blocked: `node key-sampler.ts '{"urls":[…],"keys":[…],"ms":…,"every":…}'` prints, at the end, one
 * JSON line: how many rounds it read and, per key, the rounds in which fewer than a quorum of
 * masters held it (and the first such round's ms since start).
 */
import { connectAll, closeAll } from './redis.js';

export interface Samples {
  readonly rounds: number;
  /** Per key: rounds it was off a quorum. */
  readonly off: readonly number[];
  /** Per key: ms from start of the first round it was off a quorum; -1: never. */
  readonly firstOff: readonly number[];
  /** Per key: rounds it was held on a quorum. */
  readonly on: readonly number[];
}

interface Job {
  readonly urls: readonly string[];
  readonly keys: readonly string[];
  readonly ms: number;
  readonly every: number;
}

const job = JSON.parse(process.argv[2]!) as Job;
const clients = await connectAll(job.urls);
const quorum = Math.floor(clients.length / 2) + 1;
const start = performance.now();
const off = job.keys.map(() => 0);
const on = job.keys.map(() => 0);
const firstOff = job.keys.map(() => -1);
let rounds = 0;
process.stdout.write('sampling\n');
while (performance.now() - start < job.ms) {
  const at = performance.now() - start;
  const counts = await Promise.all(clients.map((client) => Promise.all(job.keys.map((key) => client.exists(key)))));
  job.keys.forEach((_, i) => {
    const holders = counts.reduce((sum, perKey) => sum + perKey[i]!, 0);
    if (holders >= quorum) on[i]!++;
    else {
      off[i]!++;
      if (firstOff[i] === -1) firstOff[i] = Math.round(at);
    }
  });
  rounds++;
  await new Promise((resolve) => setTimeout(resolve, job.every));
}
await closeAll(clients);
process.stdout.write(`${JSON.stringify({ rounds, off, firstOff, on } satisfies Samples)}\n`);
