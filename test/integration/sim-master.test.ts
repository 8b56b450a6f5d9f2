import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { mastersSuite } from '../helpers/masters.js';
import { timed } from '../helpers/timeout.js';
import { generate, type SequenceOptions } from '../../sim/diff/generate.js';
import { RealSide } from '../../sim/diff/real.js';
import { runSequence, transcript } from '../../sim/diff/run.js';
import { clockSpread } from '../../sim/diff/compare.js';

// The simulated master (sim/master) against a real redis-server: for each seed, one random
// sequence of what pipelock sends (sim/diff/generate.ts) runs on both, and every reply, every
// invalidation pushed to the two watch connections and the whole keyspace after every step must
// be the same. DEBUG SET-ACTIVE-EXPIRE 0 leaves expiry to access, as in the simulation.
//
// Knobs: SIM_DIFF_SEEDS=n runs n seeds per mode (default 120 long-TTL, 36 short-TTL; ~12 s),
// SIM_DIFF_FIRST=s starts at seed s (default 1, so runs repeat; 'random' explores new ones and
// prints where it started), SIM_DIFF_STEPS=n steps per sequence. A failure names its seed and
// mode, the divergent step and the steps before it; replay it with SIM_DIFF_FIRST=<seed> SIM_DIFF_SEEDS=1.
const test = mastersSuite('simulated master against redis-server', { count: 1, extraArgs: ['--enable-debug-command', 'yes'] });

const kFirst = process.env.SIM_DIFF_FIRST === 'random' ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.SIM_DIFF_FIRST ?? 1);
const kSeeds = process.env.SIM_DIFF_SEEDS === undefined ? undefined : Number(process.env.SIM_DIFF_SEEDS);
const kSteps = process.env.SIM_DIFF_STEPS === undefined ? undefined : Number(process.env.SIM_DIFF_STEPS);

let real: RealSide | undefined;
test.before(async ({ masters }) => {
  real = new RealSide(masters.urls[0]!);
  await real.open();
});
test.after(async () => {
  await real?.close();
});

/**
 * Runs `seeds` sequences from seed kFirst, and more until `seeds` less a fifth of them were judged (not void), at most 3 × `seeds`.
 * A void sequence (a step too near a key's expiry to tell which side of it the server was) says nothing; a loaded
 * machine voids more of them (CI: 13 of 36 once), so the count of judged sequences is what is held, not the seeds tried.
 */
async function sweep(mode: SequenceOptions['mode'], seeds: number, steps: number): Promise<void> {
  const wanted = seeds - Math.floor(seeds / 5);
  let voided = 0;
  let seed = kFirst;
  // Every seed of the `seeds` as before, then more while voids kept the judged ones short of `wanted`.
  for (; (seed < kFirst + seeds || seed - kFirst - voided < wanted) && seed < kFirst + 3 * seeds; seed++) {
    const sequence = generate(seed, { mode, steps, baseUs: Date.now() * 1000 });
    const outcome = await runSequence(real!, sequence);
    if (outcome.status === 'diverged') {
      assert.unreachable(`seed ${seed} (${mode}) diverged at step ${outcome.at}:\n${outcome.detail}\nsteps:\n${transcript(sequence, outcome.at)}\nreplay: SIM_DIFF_FIRST=${seed} SIM_DIFF_SEEDS=1`);
    }
    if (outcome.status === 'void') {
      voided++;
      console.log(`  seed ${seed} (${mode}): void at step ${outcome.at}, ${outcome.reason}`);
    }
  }
  const tried = seed - kFirst;
  console.log(`  ${mode}: ${tried} seeds from ${kFirst}, ${voided} void; clock values apart by at most ${clockSpread.us} µs / ${clockSpread.ms} ms (longest EXEC ${clockSpread.spanUs} µs)`);
  // A run of void sequences would hide every difference: the judged ones must reach the count.
  assert.ok(tried - voided >= wanted, `${tried - voided} of ${tried} sequences judged (${voided} void); ${wanted} wanted`);
}

test('long TTLs: replies, invalidations and keyspace match step by step', timed(120_000, async () => {
  await sweep('main', kSeeds ?? 120, kSteps ?? 60);
}));

test('short TTLs and sleeps: expiry on access, its invalidations, readers and gate turns over time', timed(120_000, async () => {
  await sweep('expiry', kSeeds ?? 36, kSteps ?? 40);
}));

test.run();
