/**
 * Preloaded into `artillery run` by test/helpers/artillery.ts: Artillery 2 sizes its local worker
 * pool as os.cpus().length − 1 (lib/platform/local/index.ts; WORKERS and --count do not change it
 * for local runs), which is one worker on a 2-core machine. Reporting PIPELOCK_ARTILLERY_WORKERS + 1
 * CPUs to its main thread gives that many workers on any machine.
 */
import os from 'node:os';
import { isMainThread } from 'node:worker_threads';

const workers = Number(process.env.PIPELOCK_ARTILLERY_WORKERS);
if (isMainThread && Number.isInteger(workers) && workers > 0) {
  const cpus = os.cpus.bind(os);
  os.cpus = () => {
    const real = cpus();
    return Array.from({ length: workers + 1 }, (_, i) => real[i % real.length]);
  };
}
