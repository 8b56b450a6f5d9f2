/**
 * npm run simulate:bugs -- [--bug NAME] [--limit N] [--scenario S[,S…]] [--trace]
 *
 * Plants each known bug shape (bugs.ts) in a copy of src/ and runs seeds from 1 until the
 * simulation reports a violation within Redlock's assumptions (each seed on each scenario, default
 * mutex and handover): prints the seed that found it, the
 * property and the time taken. Exits 1 when a bug survives `limit` seeds (default 2000).
 */
import { parseArgs } from 'node:util';
import { kBugs, plant } from './bugs.js';
import { expected } from './check.js';
import { describeFailure } from './report.js';
import { runSeed } from './run.js';

const { values } = parseArgs({
  options: {
    bug: { type: 'string' },
    limit: { type: 'string', default: '2000' },
    scenario: { type: 'string', default: 'mutex,handover' },
    trace: { type: 'boolean', default: false },
  },
});

const limit = Number(values.limit);
const scenarios = values.scenario.split(',');
const bugs = values.bug === undefined ? kBugs : kBugs.filter((bug) => bug.name === values.bug);
if (bugs.length === 0) throw new Error(`no planted bug ${values.bug} (${kBugs.map((b) => b.name).join(', ')})`);
let survived = 0;
for (const bug of bugs) {
  const root = plant(bug);
  const started = performance.now();
  let found = false;
  for (let seed = 1; seed <= limit && !found; seed++) {
    for (const scenario of scenarios) {
      const result = await runSeed({ seed, scenario, root });
      if (result.verdict !== 'violation') continue;
      found = true;
      const first = result.violations.find((v) => !expected(v))!;
      console.log(`${bug.name}: found at seed ${seed} of ${scenario} in ${((performance.now() - started) / 1000).toFixed(1)} s — ${first.property}: ${first.text}`);
      if (values.trace) console.log(describeFailure(await runSeed({ seed, scenario, root, verbose: true }), root));
      break;
    }
  }
  if (!found) {
    survived++;
    console.log(`${bug.name}: NOT FOUND in ${limit} seeds of ${scenarios.join(', ')} (${((performance.now() - started) / 1000).toFixed(1)} s) — ${bug.what}`);
  }
}
process.exit(survived > 0 ? 1 : 0);
