/**
 * A process holding auto-extended locks renewed by the worker thread, for a test to SIGKILL:
 * `node worker-holder.ts '{"urls":[…],"keys":[…],"duration":…,"hold":…}'` takes the locks, keeps
 * them `hold` ms (renewed by the worker), prints `held`, and waits to be killed.
 */
import { Redlock } from '../../src/index.js';

interface Job {
  readonly urls: readonly string[];
  readonly keys: readonly string[];
  readonly duration: number;
  readonly hold: number;
}

const job = JSON.parse(process.argv[2]!) as Job;
const redlock = new Redlock(job.urls, { renewal: 'worker', retryCount: 0 });
await redlock.ready();
const locks = await Promise.all(job.keys.map((key) => redlock.acquire([key], job.duration, { autoExtend: true })));
await new Promise((resolve) => setTimeout(resolve, job.hold));
const lost = locks.filter((lock) => lock.signal!.aborted).length;
process.stdout.write(`held ${locks.length - lost}\n`);
// Waits to be killed: nothing here ends the process.
setInterval(() => undefined, 1000);
