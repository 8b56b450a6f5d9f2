import { Worker } from 'node:worker_threads';
import { judgeSeed, type SeedOutcome } from './outcome.js';

/**
 * Runs seeds across worker threads, each with its own pipelock modules loaded in a world of seed 0
 * (run.ts), so a seed gives the run it gives alone (`--seed K`) whichever thread takes it. With
 * one job the seeds run in this thread. Outcomes come back sorted by seed, whatever finished first.
 */
export class SeedPool {
  readonly #workers: Worker[] = [];

  constructor(readonly jobs: number) {
    // The worker is TypeScript: tsx's loaders are registered in the thread before it is imported (the
    // CJS one too, as `--import tsx` does: a planted bug's copy of src/ lies outside any ESM package).
    const url = new URL('./worker.ts', import.meta.url).href;
    const boot = `Promise.all([import('tsx/esm/api'), import('tsx/cjs/api')]).then(([esm, cjs]) => { esm.register(); cjs.register(); return import(${JSON.stringify(url)}); })`;
    for (let i = 0; jobs > 1 && i < jobs; i++) this.#workers.push(new Worker(boot, { eval: true }));
  }

  /** `root`: a copy of pipelock's sources to run instead of this checkout's (a planted bug, bugs.ts). */
  async run(scenario: string, seeds: readonly number[], root?: string): Promise<SeedOutcome[]> {
    const outcomes: SeedOutcome[] = [];
    if (this.#workers.length === 0) {
      for (const seed of seeds) outcomes.push(await judgeSeed(scenario, seed, root));
      return outcomes;
    }
    let next = 0;
    await Promise.all(this.#workers.map((worker) => new Promise<void>((resolve, reject) => {
      const give = (): void => {
        if (next >= seeds.length) {
          worker.off('message', take).off('error', reject);
          resolve();
          return;
        }
        worker.postMessage({ scenario, seed: seeds[next++], root });
      };
      const take = (outcome: SeedOutcome): void => {
        outcomes.push(outcome);
        give();
      };
      worker.on('message', take).on('error', reject);
      give();
    })));
    return outcomes.sort((a, b) => a.seed - b.seed);
  }

  async close(): Promise<void> {
    await Promise.all(this.#workers.map((worker) => worker.terminate()));
  }
}
