import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runSeed } from '../../sim/world/run.js';

const kRoot = fileURLToPath(new URL('../..', import.meta.url));

// The simulation of whole client processes (sim/world/): a seed is a run, exactly.
const test = suite('simulated world');

test('a seed replays the same history, whatever ran before it; another seed does not', async () => {
  const first = await runSeed({ seed: 11, scenario: 'mutex' });
  const other = await runSeed({ seed: 12, scenario: 'mutex' });
  const again = await runSeed({ seed: 11, scenario: 'mutex', verbose: true });
  assert.is(again.hash, first.hash);
  assert.is.not(other.hash, first.hash);
  // Not a run where nothing happened: holders held, every operation settled.
  assert.ok(first.history.claims.length > 10, `${first.history.claims.length} claims`);
  assert.ok(first.history.ops.every((op) => op.settled !== undefined));
});

test('a seed replayed in a fresh process (npm run simulate -- --seed K) is the same run', () => {
  // Both sides in fresh processes: this file may share its process with other unit files that
  // loaded pipelock outside a seed-0 world (sim/world/run.ts), whose module state a seed then meets.
  const replay = (): string => {
    const out = execFileSync(process.execPath, ['--conditions=pipelock-source', '--import', 'tsx', 'sim/world/cli.ts', '--seed', '13', '--scenario', 'handover'], { cwd: kRoot, encoding: 'utf8' });
    return /history ([0-9a-f]+)/.exec(out)?.[1] ?? `no history in: ${out.slice(-300)}`;
  };
  const first = replay();
  assert.match(first, /^[0-9a-f]{16}$/);
  assert.is(replay(), first);
});

test.run();
