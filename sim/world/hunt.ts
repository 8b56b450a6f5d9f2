/**
 * npm run simulate:bugs -- [--bug NAME] [--limit N] [--scenario S[,S…]] [--jobs J] [--trace] [--progress]
 *
 * Plants each known bug shape (bugs.ts) in a copy of src/ and runs seeds from 1 until the
 * simulation reports a violation within Redlock's assumptions (each seed on each scenario: the
 * bug's own, else mutex and handover; `--scenario` for all): prints the seed that found it, the
 * property and the time taken. Exits 1 when a bug survives `limit` seeds (default 2000).
 */
import { parseArgs } from 'node:util';
import { kBugs, plant } from './bugs.js';
import { expected } from './check.js';
import { describeFailure } from './report.js';
import { SeedPool } from './pool.js';
import { runSeed } from './run.js';

const { values } = parseArgs({
  options: {
    bug: { type: 'string' },
    limit: { type: 'string', default: '2000' },
    jobs: { type: 'string', default: '1' },
    scenario: { type: 'string' },
    trace: { type: 'boolean', default: false },
    progress: { type: 'boolean', default: false },
  },
});

const limit = Number(values.limit);
const jobs = Number(values.jobs);
const pool = new SeedPool(jobs);
const bugs = values.bug === undefined ? kBugs : kBugs.filter((bug) => bug.name === values.bug);
if (bugs.length === 0) throw new Error(`no planted bug ${values.bug} (${kBugs.map((b) => b.name).join(', ')})`);
let survived = 0;
for (const bug of bugs) {
  const root = plant(bug);
  const scenarios = values.scenario?.split(',') ?? bug.scenarios ?? ['mutex', 'handover'];
  const started = performance.now();
  let found = false;
  // Seeds in batches across the pool's threads, judged in seed order (the first finding seed is the same whatever J).
  const batch = Math.max(1, jobs * 4);
  for (let from = 1; from <= limit && !found; from += batch) {
    const seeds = Array.from({ length: Math.min(batch, limit - from + 1) }, (_, i) => from + i);
    // One scenario at a time: the pool's threads take one run's seeds at once.
    const runs: { scenario: string; outcomes: Awaited<ReturnType<SeedPool['run']>> }[] = [];
    for (const scenario of scenarios) runs.push({ scenario, outcomes: await pool.run(scenario, seeds, root) });
    for (const seed of seeds) {
      const hit = runs.find((r) => r.outcomes.find((o) => o.seed === seed)!.verdict === 'violation');
      if (hit === undefined) continue;
      found = true;
      const result = await runSeed({ seed, scenario: hit.scenario, root });
      const first = result.violations.find((v) => !expected(v))!;
      console.log(`${bug.name}: found at seed ${seed} of ${hit.scenario} in ${((performance.now() - started) / 1000).toFixed(1)} s — ${first.property}: ${first.text}`);
      if (values.trace) console.log(describeFailure(await runSeed({ seed, scenario: hit.scenario, root, verbose: true }), root));
      break;
    }
    if (!found && values.progress) console.error(`${bug.name}: no violation in seeds 1..${seeds.at(-1)!} (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  }
  if (!found) {
    survived++;
    console.log(`${bug.name}: NOT FOUND in ${limit} seeds of ${scenarios.join(', ')} (${((performance.now() - started) / 1000).toFixed(1)} s) — ${bug.what}`);
  }
}
await pool.close();
process.exit(survived > 0 ? 1 : 0);
