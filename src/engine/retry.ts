import { Attempt, FOR, type Vote } from './attempt.js';

/**
 * A release tried again on masters whose first answer never came (MasterSet.retry): any answer now
 * counts as released, since "not ours" cannot be told apart from "deleted by the try that timed
 * out" — a paused master runs what it was sent once it resumes.
 */
export class Retry extends Attempt {
  protected override judge(): Vote {
    return FOR;
  }
}
