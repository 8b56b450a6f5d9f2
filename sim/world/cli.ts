/**
 * npm run simulate -- [--seeds N] [--first K] [--scenario S] [--seed K] [--jobs J] [--verbose] [--json]
 *
 * Runs N seeds (from K) of each scenario (or of S) against this checkout's pipelock, on J worker
 * threads (default: one per core); prints per scenario the seeds, violations, runs that broke
 * Redlock's assumptions on purpose, seeds per second and a digest of every seed's history hash
 * (the same whatever J); each failing seed with its trace, in seed order. `--seed K` replays one
 * seed verbosely (every message in the trace) and prints its history hash. `--json` writes the
 * tallies to bench/results/simulate.json, from which RELIABILITY.md's simulation section is
 * rendered. Exits 1 on a violation in a run within the assumptions.
 */
import { createHash } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { SeedPool } from './pool.js';
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
    jobs: { type: 'string', default: String(availableParallelism()) },
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
      console.log(`scenario ${scenario}, seed ${result.seed}: no violation; history ${result.hash}, ${result.history.lines.length} lines, ${result.virtualMs.toFixed(0)} virtual ms, ${result.events} events`);
      if (values.verbose) console.log(result.history.lines.join('\n'));
    }
  }
} else {
  const seeds = Number(values.seeds);
  const first = Number(values.first);
  const jobs = Math.max(1, Math.min(Number(values.jobs), seeds));
  const loadAtStart = loadavg()[0] ?? 0;
  const pool = new SeedPool(jobs);
  const tallies: ScenarioTally[] = [];
  for (const scenario of scenarios) {
    const started = performance.now();
    const outcomes = await pool.run(scenario, Array.from({ length: seeds }, (_, i) => first + i));
    const seconds = (performance.now() - started) / 1000;
    const violatingSeeds = outcomes.filter((o) => o.verdict === 'violation').map((o) => o.seed);
    for (const o of outcomes) if (o.report !== undefined) console.log(o.report);
    if (violatingSeeds.length > 0) failed = true;
    const unsafeRuns = outcomes.filter((o) => o.unsafe).length;
    const expectedRuns = outcomes.filter((o) => o.verdict === 'expected').length;
    const digest = createHash('sha256').update(outcomes.map((o) => `${o.seed} ${o.hash}\n`).join('')).digest('hex').slice(0, 16);
    tallies.push({ scenario, first, seeds, violating: violatingSeeds.length, violatingSeeds, unsafeRuns, expectedRuns, seconds, digest });
    console.log(`scenario ${scenario}: seeds ${first}..${first + seeds - 1}, ${violatingSeeds.length} violating; ${unsafeRuns} with faults outside the assumptions; ${expectedRuns} unsafe only where expected (those faults, or a holder acting straight after a pause); ${(seeds / seconds).toFixed(1)} seeds/s on ${jobs} job(s); histories ${digest}`);
    // Written after each scenario: a long run stopped part way still records the scenarios it finished.
    if (values.json) writeSummary(SIMULATE_JSON, `npm run simulate -- ${process.argv.slice(2).join(' ')}`, jobs, tallies, loadAtStart);
  }
  await pool.close();
}
process.exit(failed ? 1 : 0);
