import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { notSimulated, simulationSection } from '../../bench/faults/simulation.js';
import { hostInfo } from '../../bench/lib/host.js';
import { mergeTallies, type ScenarioTally, type SimulationSummary } from '../../sim/world/summary.js';

// RELIABILITY.md's simulation section, rendered from bench/results/simulate.json (npm run faults:report).
const test = suite('simulation section');

const readme = readFileSync(new URL('../../sim/README.md', import.meta.url), 'utf8');

test("what is not simulated is sim/README.md's section, all of it", () => {
  const text = notSimulated(readme);
  assert.match(text, /^ioredis clients and cluster members/);
  assert.match(text, /loses un-replicated writes on failover\.$/);
  assert.not.match(text, /\n/);
  assert.ok(simulationSection(undefined).includes(text));
  assert.throws(() => notSimulated('# sim\n\nnothing here\n'), /no "## Not simulated" section/);
});

test('a row per scenario: seeds, violations with their seeds, seeds/s, the digest; the command, threads and host', () => {
  const summary: SimulationSummary = {
    host: { ...hostInfo([], 'x'), loadavg: [1.5, 2.25] },
    command: 'npm run simulate -- --seeds 200 --json',
    jobs: 2,
    scenarios: [
      { scenario: 'mutex', first: 1, seeds: 200, violating: 0, violatingSeeds: [], unsafeRuns: 0, expectedRuns: 3, seconds: 40, digest: 'aaaaaaaaaaaaaaaa',
        run: { command: 'npm run simulate -- --seeds 200 --json', pipelock: '0.1.0 (abc1234)', date: '2026-11-27T05:31:00.240Z' } },
      { scenario: 'unsafe', first: 1, seeds: 200, violating: 2, violatingSeeds: [17, 99], unsafeRuns: 150, expectedRuns: 40, seconds: 25, digest: 'bbbbbbbbbbbbbbbb' },
    ],
  };
  const text = simulationSection(summary);
  assert.ok(text.includes('| `mutex` | 1–200 | **0** | 0 | 3 | 5.0 | `aaaaaaaaaaaaaaaa` | abc1234, 2026-11-27 |'), text);
  assert.ok(text.includes('| `unsafe` | 1–200 | **2** (seeds 17, 99) | 150 | 40 | 8.0 | `bbbbbbbbbbbbbbbb` |  |'), text);
  assert.ok(text.includes('`npm run simulate -- --seeds 200 --json` (on 2 threads;'), text);
  assert.ok(text.includes('load avg 1.50 → 2.25'), text);
});

test("a run of some scenarios replaces their rows and keeps the others with the run each came from", () => {
  const row = (scenario: string, digest: string): ScenarioTally => ({ scenario, first: 1, seeds: 10, violating: 0, violatingSeeds: [], unsafeRuns: 0,
    expectedRuns: 0, seconds: 1, digest });
  const earlier: SimulationSummary = { host: { ...hostInfo([], 'x'), pipelock: '0.1.0 (old)', date: 'then' }, command: 'old run', jobs: 2,
    scenarios: [row('mutex', 'a'), row('kinds', 'b')] };
  const run = { command: 'new run', pipelock: '0.1.0 (new)', date: 'now' };
  const merged = mergeTallies(earlier, [{ ...row('kinds', 'c'), run }, { ...row('worker', 'd'), run }]);
  assert.equal(merged.map((t) => [t.scenario, t.digest, t.run?.command]), [['mutex', 'a', 'old run'], ['kinds', 'c', 'new run'], ['worker', 'd', 'new run']]);
  assert.is(merged[0]!.run?.pipelock, '0.1.0 (old)');
  assert.equal(mergeTallies(undefined, [row('mutex', 'e')]).map((t) => t.digest), ['e']);
});

test.run();
