import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { kBugs, plant } from '../../sim/world/bugs.js';
import { runSeed } from '../../sim/world/run.js';

// The simulation finds planted bugs within a few seeds, and the same seeds pass on the real code
// (the full hunt, every bug up to 2,000 seeds, is `npm run simulate:bugs`).
const test = suite('simulated world: planted bugs');

for (const name of ['release-without-owner-check', 'expired-acquire'] as const) {
  test(`${name} is found within 10 seeds, on seeds the real code passes`, async () => {
    const bug = kBugs.find((b) => b.name === name)!;
    const root = plant(bug);
    let found: { seed: number; scenario: string } | undefined;
    for (let seed = 1; seed <= 10 && found === undefined; seed++) {
      for (const scenario of ['mutex', 'handover']) {
        if ((await runSeed({ seed, scenario, root })).verdict === 'violation') {
          found = { seed, scenario };
          break;
        }
      }
    }
    assert.ok(found !== undefined, `${name} survived 10 seeds`);
    assert.is((await runSeed({ ...found })).verdict, 'ok');
  });
}

// Bugs of the election, the reentrant recipe and renewal 'worker', each in the scenario that reaches
// it: found at the seed `npm run simulate:bugs -- --bug NAME` reports (sim/README.md), as the
// property named, and the real code passes that seed.
const kFound = [
  { name: 'election-pass-keeps-token', scenario: 'election', seed: 1, property: 'terms' },
  { name: 'term-from-clock', scenario: 'election-restarts', seed: 114, property: 'terms' },
  { name: 'reentrant-stale-signal', scenario: 'reentrant', seed: 1, property: 'reentrant' },
  { name: 'worker-past-heartbeat', scenario: 'worker', seed: 1, property: 'heartbeat' },
] as const;

for (const { name, scenario, seed, property } of kFound) {
  test(`${name} is found at seed ${seed} of ${scenario} (${property}); the real code passes it`, async () => {
    const root = plant(kBugs.find((b) => b.name === name)!);
    const planted = await runSeed({ seed, scenario, root });
    assert.is(planted.verdict, 'violation', `${name} survived seed ${seed}`);
    assert.ok(planted.violations.some((v) => v.property === property), planted.violations.map((v) => `${v.property}: ${v.text}`).join('; '));
    const real = await runSeed({ seed, scenario });
    assert.is(real.verdict, 'ok', real.violations.map((v) => `${v.property}: ${v.text}`).join('; '));
  });
}

test('a patch whose text is gone fails the planting, loudly', () => {
  assert.throws(() => plant({ name: 'gone', what: 'nothing', patches: [{ file: 'src/lifecycle/validity.ts', from: 'no such text', to: '' }] }), /must hold exactly one/);
});

test.run();
