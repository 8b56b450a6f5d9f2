import { describeFailure } from './report.js';
import { runSeed } from './run.js';

/** What one seed's run comes to, small enough to pass between threads. */
export interface SeedOutcome {
  readonly scenario: string;
  readonly seed: number;
  readonly hash: string;
  readonly verdict: 'ok' | 'violation' | 'expected';
  /** Given faults outside Redlock's assumptions. */
  readonly unsafe: boolean;
  /** For a violation: the verbose replay's report (trace, replay command), as the CLI prints it. */
  readonly report: string | undefined;
}

/**
 * Runs one seed (of `root`'s sources: a planted bug, bugs.ts); a violation is replayed verbosely
 * for its trace, and the replay must be the same run (its hash says so).
 */
export async function judgeSeed(scenario: string, seed: number, root?: string): Promise<SeedOutcome> {
  const result = await runSeed({ seed, scenario, root });
  const outcome = { scenario, seed, hash: result.hash, verdict: result.verdict, unsafe: result.unsafe.length > 0 };
  if (result.verdict !== 'violation') return { ...outcome, report: undefined };
  const replay = await runSeed({ seed, scenario, verbose: true, root });
  const mismatch = replay.hash === result.hash ? '' : `\n  NOT REPRODUCED: the replay's history is ${replay.hash}, the run's ${result.hash}`;
  return { ...outcome, report: `${describeFailure(replay, root)}${mismatch}` };
}
