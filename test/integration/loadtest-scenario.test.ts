import '../helpers/setup.js';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { decode } from '../../tools/src/load/histogram.js';
import { OP_NAMES, type PartResult, type RunResult } from '../../tools/src/load/result.js';
import { cli, root } from '../helpers/cli.js';
import { mastersSuite } from '../helpers/masters.js';
import { timed } from '../helpers/timeout.js';

// The two example scenarios of docs/load-testing.md, run with 1 s stages; and the errors a bad file gets.
const test = mastersSuite('loadtest scenario', { count: 3 });

let dir = '';
test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pipelock-scenario-'));
});
test.after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The documented examples: each ```yaml block that starts with `# scenario: NAME`. */
async function examples(): Promise<Map<string, string>> {
  const doc = await readFile(join(root, 'docs', 'load-testing.md'), 'utf8');
  return new Map([...doc.matchAll(/```yaml\n# scenario: (\S+)\n([\s\S]*?)```/g)].map((m) => [m[1]!, m[2]!]));
}

/** Short: every stage 1 s, 0.2 s of warm-up; and rates a loaded 2-core machine serves. */
function shortened(yaml: string): string {
  return yaml.replace(/duration: \d+s/g, 'duration: 1s').replace(/warmup: \d+s/, 'warmup: 0.2s').replace(/rate: (\d+)/g, (_, r: string) => `rate: ${Number(r) / 20}`);
}

/** Parts add up to the run: cycles, errors and every histogram's count. */
function addsUp(result: RunResult, parts: readonly PartResult[], what: string): void {
  assert.is(parts.reduce((n, p) => n + p.cycles, 0), result.cycles, `${what} cycles sum to the run's`);
  const errors = (e: Readonly<Record<string, number>>): number => Object.values(e).reduce((a, b) => a + b, 0);
  assert.is(parts.reduce((n, p) => n + errors(p.errors), 0), errors(result.errors), `${what} errors sum to the run's`);
  for (const op of OP_NAMES) {
    assert.is(parts.reduce((n, p) => n + decode(p.operations[op].histogram).totalCount, 0), result.operations[op].count, `${what} ${op} counts`);
  }
}

for (const [name, stages, entries] of [['launch', 3, ['orders', 'hot-accounts', 'jobs']], ['kinds', 2, ['catalogue', 'quota', 'nested']]] as const) {
  test(`the documented "${name}" scenario runs: per-stage and per-entry results add up in the JSON, and show in the table and HTML`, timed(60_000, async ({ masters }) => {
    const yaml = (await examples()).get(name);
    assert.ok(yaml !== undefined, `docs/load-testing.md has the ${name} example`);
    const file = join(dir, `${name}.yaml`);
    await writeFile(file, shortened(yaml));
    const json = join(dir, `${name}.json`);
    const html = join(dir, `${name}.html`);
    const run = await cli(['loadtest', '--scenario', file, '--servers', masters.urls.join(','), '--workers', '2', '--json', json, '--html', html], { limitMs: 50_000 });
    // Its thresholds are for a real machine: on this loaded one they may fail (99), which is no failure of the runner.
    assert.ok(run.code === 0 || run.code === 99, `exit ${String(run.code)}: ${run.stderr}`);
    const result = JSON.parse(await readFile(json, 'utf8')) as RunResult;
    assert.ok(result.cycles > 0);
    assert.equal(result.stages!.length, stages);
    assert.equal(result.mix!.map((m) => m.name), [...entries]);
    assert.ok(result.mix!.every((m) => m.cycles > 0), `every entry ran: ${result.mix!.map((m) => m.cycles).join()}`);
    addsUp(result, result.stages!, 'stages');
    addsUp(result, result.mix!, 'mix');
    assert.match(run.stdout, new RegExp(`^pipelock loadtest: scenario ${file.replaceAll('.', '\\.')}`, 'm'));
    assert.match(run.stdout, /^by stage +cycles +cycles\/s/m);
    assert.match(run.stdout, new RegExp(`^${entries[1]} +\\d+`, 'm'));
    const page = await readFile(html, 'utf8');
    assert.ok(page.includes('<table id="by-stage">') && page.includes('<table id="by-mix">'));
  }));
}

// Six commands, each a node process: 22 s for the file on the slower 2-core host, quiet; its limit is a hang's, not a speed.
test('a bad scenario exits 2 naming the file, the line and the field', timed(120_000, async () => {
  const file = join(dir, 'bad.yaml');
  const cases: [string, RegExp][] = [
    ['stages:\n  - { duration: 1s, rate: 100 }\nmix:\n  - name: a\n    keys: { distribution: hot, count: 10, hot: 2, share: 180% }\n', /bad\.yaml:5: mix\[0\]\.keys\.share must be a share: 80% or 0\.8/],
    ['stages:\n  - { duration: 1s, rate: 100 }\n  - { duration: 1s, concurrency: 4 }\n', /bad\.yaml:3: stages\[1\] sets concurrency where stage 0 sets rate/],
    ['stages:\n  - { duration: 1s, rate: 100 }\nmix:\n  - { name: a, operation: renew-hold }\n', /bad\.yaml:4: mix\[0\]\.operation must be one of .*renew-hold runs alone/],
    ['stages:\n  - { duraton: 1s, rate: 100 }\n', /bad\.yaml:2: stages\[0\]\.duraton is not a field here/],
    ['stages: [\n', /bad\.yaml:\d+: is not valid YAML or JSON/],
  ];
  for (const [text, message] of cases) {
    await writeFile(file, text);
    const run = await cli(['loadtest', '--scenario', file]);
    assert.is(run.code, 2, run.stderr);
    assert.ok(run.stderr.startsWith(`pipelock loadtest: --scenario ${file}:`), run.stderr);
    assert.match(run.stderr, message);
  }
  await writeFile(file, 'stages:\n  - { duration: 1s, rate: 100 }\n');
  const both = await cli(['loadtest', '--scenario', file, '--rate', '10']);
  assert.is(both.code, 2);
  assert.match(both.stderr, /--rate conflicts with --scenario: the scenario file sets it/);
}));

test.run();
