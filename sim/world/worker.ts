/** A worker thread of `npm run simulate --jobs N`: runs the seeds it is sent, one at a time, and posts each outcome. */
import { parentPort } from 'node:worker_threads';
import { judgeSeed } from './outcome.js';

interface Job {
  readonly scenario: string;
  readonly seed: number;
  readonly root: string | undefined;
}

parentPort!.on('message', (job: Job) => {
  void judgeSeed(job.scenario, job.seed, job.root).then((outcome) => { parentPort!.postMessage(outcome); });
});
