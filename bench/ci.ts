/**
 * `npm run bench:ci`: a short pipelock-vs-quorum-ceiling run (well under 2 minutes) that fails when
 * pipelock's ratio to the ceiling falls more than the baseline's tolerance below bench/baseline.json.
 *
 *   node --import tsx bench/ci.ts                    compare with the committed baseline
 *   node --import tsx bench/ci.ts --write-baseline   measure 3 times and rewrite bench/baseline.json
 *
 * The baseline is the lowest ratio of those 3 runs, not their median: on this machine kind (a VM
 * with 2 cores and visible steal time) the same ratio moved by ±40% between runs minutes apart, and
 * a gate that flakes would block honest changes. A lost coalescing or a doubled hot path still fails.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { compareToBaseline, formatVerdict, type Baseline } from './lib/baseline.js';
import { hostLine, ROOT } from './lib/host.js';
import { ratio, summarize } from './lib/summary.js';
import { QUORUM_CEILING } from './peers/contender.js';
import { runPeers } from './peers/harness.js';

const kConfigs = ['c64', 'c512'];
const kTolerance = 0.15;
// Five paired repetitions: the median of five per-pair ratios moved far less between runs here than of three.
const kReps = 5;
const baselinePath = join(ROOT, 'bench', 'baseline.json');

const { values } = parseArgs({ options: { 'write-baseline': { type: 'boolean', default: false } } });
const started = performance.now();
const rounds = values['write-baseline'] ? 3 : 1;
const measured: Record<string, number> = {};
let result: Awaited<ReturnType<typeof runPeers>> | undefined;
for (let round = 0; round < rounds; round++) {
  result = await runPeers(
    { contenders: ['pipelock', QUORUM_CEILING], configs: kConfigs, reps: kReps, warmupMs: 500, durationMs: 2000, masters: 5, command: 'npm run bench:ci' },
    (line) => { console.log(line); },
  );
  await mkdir(join(ROOT, '.tmp'), { recursive: true });
  await writeFile(join(ROOT, '.tmp', 'bench-ci.json'), `${JSON.stringify(result, null, 1)}\n`);
  const summary = summarize(result.runs);
  console.log(`host: ${hostLine(result.host)}`);
  for (const config of kConfigs) {
    const value = ratio(summary, config, 'pipelock', QUORUM_CEILING);
    measured[config] = Math.min(measured[config] ?? Infinity, value);
    const p = summary[config]?.pipelock?.cyclesPerSec.median ?? NaN;
    const c = summary[config]?.[QUORUM_CEILING]?.cyclesPerSec.median ?? NaN;
    console.log(`${config}: pipelock ${Math.round(p)} cycles/s, quorum ceiling ${Math.round(c)} cycles/s (medians of ${kReps}), ratio ${value.toFixed(3)}×`);
  }
}
if (result === undefined) throw new Error('no run');

if (values['write-baseline']) {
  const baseline: Baseline = {
    tolerance: kTolerance,
    ratios: Object.fromEntries(Object.entries(measured).map(([config, value]) => [config, Number(value.toFixed(3))])),
    measured: `lowest of 3 runs; ${hostLine(result.host)}`,
    refresh: 'npm run bench:ci -- --write-baseline (3 runs, keeps the lowest ratio; commit the file)',
  };
  await writeFile(baselinePath, `${JSON.stringify(baseline, null, 2)}\n`);
  console.log(`bench:ci: wrote ${baselinePath}`);
} else {
  const baseline = JSON.parse(await readFile(baselinePath, 'utf8')) as Baseline;
  const verdict = compareToBaseline(measured, baseline);
  console.log(formatVerdict(verdict));
  console.log(`bench:ci: ${verdict.ok ? 'ok' : 'FAIL: pipelock fell behind its baseline ratio to the quorum ceiling'} (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  if (!verdict.ok) process.exitCode = 1;
}
if (result.runs.some((run) => run.error !== undefined)) process.exitCode = 1;
