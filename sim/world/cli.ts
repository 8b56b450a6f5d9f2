/**
 * npm run simulate -- [--seeds N] [--first K] [--scenario S] [--seed K] [--verbose] [--json]
 *
 * Runs N seeds (from K) of each scenario (or of S) against this checkout's pipelock; prints per
 * scenario the seeds, violations, runs that broke Redlock's assumptions on purpose, and seeds per
 * second; a failing seed with its trace. `--seed K` replays one seed verbosely (every message in
 * the trace) and prints its history hash. `--json` writes the tallies to bench/results/simulate.json, from which RELIABILITY.md's simulation section is rendered. Exits 1 on
 * a violation in a run within the assumptions.
 */
import { parseArgs } from 'node:util';
import { describeFailure } from './report.js';
import { runSeed } from './run.js';
import { kScenarios } from './scenarios.js';
import { SIMULATE_JSON, writeSummary, type ScenarioTally } from './summary.js';

const { values } = parseArgs({
  options: {
    seeds: { type: 'string', default: '100' },
    first: { type: 'string', default: '1' },
    scenario: { type: 'string' },
    seed: { type: 'string' },
    verbose: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});

const scenarios = values.scenario !== undefined ? [values.scenario] : Object.keys(kScenarios);
let failed = false;

if (values.seed !== undefined) {
  for (const scenario of scenarios) {
    const result = await runSeed({ seed: Number(values.seed), scenario, verbose: true });
    if (result.verdict !== 'ok') {
      console.log(describeFailure(result));
      if (result.verdict === 'violation') failed = true;
    } else {
      console.log(`scenario ${scenario}, seed ${result.seed}: no violation; history ${result.hash}, ${result.history.lines.length} lines, ${result.virtualMs.toFixed(0)} virtual ms`);
      if (values.verbose) console.log(result.history.lines.join('\n'));
    }
  }
} else {
  const seeds = Number(values.seeds);
  const first = Number(values.first);
  const tallies: ScenarioTally[] = [];
  for (const scenario of scenarios) {
    const violatingSeeds: number[] = [];
    const started = performance.now();
    let violating = 0;
    let unsafeRuns = 0;
    let expectedRuns = 0;
    for (let seed = first; seed < first + seeds; seed++) {
      const result = await runSeed({ seed, scenario });
      if (result.unsafe.length > 0) unsafeRuns++;
      if (result.verdict === 'ok') continue;
      if (result.verdict === 'expected') {
        expectedRuns++;
        continue;
      }
      violating++;
      violatingSeeds.push(seed);
      failed = true;
      // Replayed verbosely for its trace: the replay must be the same run (its hash says so).
      const replay = await runSeed({ seed, scenario, verbose: true });
      console.log(describeFailure(replay));
      if (replay.hash !== result.hash) console.log(`  NOT REPRODUCED: the replay's history is ${replay.hash}, the run's ${result.hash}`);
    }
    const seconds = (performance.now() - started) / 1000;
    tallies.push({ scenario, first, seeds, violating, violatingSeeds, unsafeRuns, expectedRuns, seconds });
    console.log(`scenario ${scenario}: seeds ${first}..${first + seeds - 1}, ${violating} violating; ${unsafeRuns} with faults outside the assumptions; ${expectedRuns} unsafe only where expected (those faults, or a holder acting straight after a pause); ${(seeds / seconds).toFixed(1)} seeds/s`);
  }
  if (values.json) writeSummary(SIMULATE_JSON, `npm run simulate -- ${process.argv.slice(2).join(' ')}`, tallies);
}
process.exit(failed ? 1 : 0);
