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
    // The worker is TypeScript: tsx's loader is registered in the thread before it is imported.
    const url = new URL('./worker.ts', import.meta.url).href;
    const boot = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(url)}); })`;
    for (let i = 0; jobs > 1 && i < jobs; i++) this.#workers.push(new Worker(boot, { eval: true }));
  }

  async run(scenario: string, seeds: readonly number[]): Promise<SeedOutcome[]> {
    const outcomes: SeedOutcome[] = [];
    if (this.#workers.length === 0) {
      for (const seed of seeds) outcomes.push(await judgeSeed(scenario, seed));
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
        worker.postMessage({ scenario, seed: seeds[next++] });
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
