/**
 * What observability costs, paired in one run: the peer benchmark's C=64 workload over 5 masters,
 * each repetition measuring in turn the baseline commit without the event sites (`--baseline`,
 * default main), this tree with nobody listening, and this tree with the prom-client and the
 * OpenTelemetry adapters attached. Ratios are taken within each repetition, then their median.
 * Writes bench/results/metrics-cost.json.
 *
 *   node --import tsx bench/metrics/run.ts [--reps 5] [--baseline main] [--duration-ms 4000]
 */
import { execFileSync, execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { startMasters } from '../../src/testing/masters.js';
import { ROOT } from '../lib/host.js';

const run = promisify(execFile);
const { values } = parseArgs({
  options: {
    reps: { type: 'string', default: '5' },
    baseline: { type: 'string', default: 'main' },
    concurrency: { type: 'string', default: '64' },
    'duration-ms': { type: 'string', default: '4000' },
  },
});
const baselineDir = join(ROOT, '.tmp', `baseline-${values.baseline.replace(/\W/g, '_')}`);
mkdirSync(baselineDir, { recursive: true });
// The baseline's sources only; its imports resolve to this tree's node_modules (.tmp is inside it).
execFileSync('sh', ['-c', `git archive ${JSON.stringify(values.baseline)} src | tar -x -C ${JSON.stringify(baselineDir)}`], { cwd: ROOT });
const variants = [
  { name: 'baseline', variant: 'off', src: join(baselineDir, 'src') },
  { name: 'off', variant: 'off', src: join(ROOT, 'src') },
  { name: 'prom', variant: 'prom', src: join(ROOT, 'src') },
  { name: 'otel', variant: 'otel', src: join(ROOT, 'src') },
];
const masters = await startMasters({ count: 5 });
const reps: Record<string, number>[] = [];
try {
  for (let rep = 0; rep < Number(values.reps); rep++) {
    const row: Record<string, number> = {};
    // Rotated so that no variant always runs first (or last) in a repetition.
    for (let i = 0; i < variants.length; i++) {
      const v = variants[(i + rep) % variants.length]!;
      for (const master of masters.masters) await master.flush();
      const { stdout } = await run(process.execPath, ['--conditions=pipelock-source', '--import', 'tsx', join(ROOT, 'bench', 'metrics', 'run-one.ts'), '--variant', v.variant, '--src', v.src,
        '--urls', masters.urls.join(','), '--concurrency', values.concurrency, '--duration-ms', values['duration-ms']], { cwd: ROOT, maxBuffer: 1 << 24 });
      const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as { cyclesPerSec: number; errors: number; firstError?: string };
      // Kept, not fatal: on a loaded machine a master can miss the 250 ms nodeTimeout; the JSON says how often.
      if (result.errors > 0) console.log(`  ${v.name}: ${result.errors} errors (${result.firstError ?? '?'})`);
      row[v.name] = result.cyclesPerSec;
      row[`${v.name}Errors`] = result.errors;
    }
    reps.push(row);
    console.log(`rep ${rep + 1}: ${variants.map((v) => `${v.name} ${Math.round(row[v.name]!)}/s`).join(', ')}`);
  }
} finally {
  await masters.close();
}
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const ratios = Object.fromEntries(['off', 'prom', 'otel'].map((name) => [`${name}/baseline`, median(reps.map((r) => r[name]! / r.baseline!))]));
console.log(Object.entries(ratios).map(([k, v]) => `${k} ${v.toFixed(3)}`).join('  '));
const host = execFileSync('sh', ['-c', 'nproc; uname -sr; node --version; cat /proc/loadavg'], { encoding: 'utf8' }).trim().split('\n');
mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
writeFileSync(join(ROOT, 'bench', 'results', 'metrics-cost.json'), `${JSON.stringify({ command: `node --import tsx bench/metrics/run.ts ${process.argv.slice(2).join(' ')}`.trim(), host, concurrency: Number(values.concurrency), reps, medianRatios: ratios }, null, 1)}\n`);
