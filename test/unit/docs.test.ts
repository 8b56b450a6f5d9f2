import '../helpers/setup.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as pipelock from '../../src/index.js';
import { kSingleTradeoff } from '../../tools/src/ops/doctor.js';
import { checkDocs, pages, relativeLinks, slug, sourceImports, stalePaths } from '../../scripts/docs/check.js';
import { committedArchitecture, renderArchitecture } from '../../scripts/docs/architecture.js';
import { committedDashboard, renderDashboard } from '../../scripts/docs/dashboard.js';
import { committedErrors, errorClasses, renderErrors } from '../../scripts/docs/errors.js';
import { committedSettings, renderSettings } from '../../scripts/docs/settings.js';
import { checkSnippets, snippets } from '../../scripts/docs/snippets.js';
import { committedComparison, renderComparison } from '../../scripts/docs/comparison.js';
import { resultsCommit, staleCitations, tablesWithoutProvenance } from '../../scripts/docs/provenance.js';
import { descriptionProblems, repoRoot } from '../../scripts/docs/tsdoc.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';

/** The docs state what the code does: generated pages are fresh, links resolve, README keeps its promises. */
const test = suite('docs');

test('docs/settings.md is what npm run docs:settings writes from src/settings.ts', () => {
  assert.ok(renderSettings() === committedSettings(), 'docs/settings.md is stale: run npm run docs:settings');
});

test('docs/errors.md is what npm run docs:errors writes from src/errors.ts', () => {
  assert.ok(renderErrors() === committedErrors(), 'docs/errors.md is stale: run npm run docs:errors');
});

test('docs/dashboard/pipelock.json is what npm run docs:dashboard writes', () => {
  assert.ok(renderDashboard() === committedDashboard(), 'docs/dashboard/pipelock.json is stale: run npm run docs:dashboard');
});

test('docs/architecture.md is what npm run docs:architecture writes from the layer ranks', () => {
  assert.ok(renderArchitecture() === committedArchitecture(), 'docs/architecture.md is stale: run npm run docs:architecture');
});

test('docs/comparison.md\'s speed table is what npm run docs:comparison writes from bench/results/peers.json', () => {
  assert.ok(committedComparison() !== '', 'docs/comparison.md has the generated block');
  assert.ok(renderComparison() === committedComparison(), 'docs/comparison.md is stale: run npm run docs:comparison');
});

test('every table of figures in README.md, BENCHMARKS.md and docs/*.md names CPU, date and commit; citations of a benchmark name its results\' commit', () => {
  const files = [...pages(), join(repoRoot, 'BENCHMARKS.md')];
  assert.equal(files.flatMap((file) => [...tablesWithoutProvenance(file), ...staleCitations(file)]), []);
});

test('a table of figures without provenance, and a citation of an older run, are problems', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pipelock-docs-'));
  const page = join(dir, 'page.md');
  const table = '| contender | cycles/s |\n|---|---:|\n| pipelock | 25,707 |\n';
  try {
    writeFileSync(page, `# Page\n\n## Speed\n\n${table}`);
    assert.is(tablesWithoutProvenance(page).length, 1);
    writeFileSync(page, `# Page\n\n## Speed\n\nAMD EPYC, 2 cores; pipelock 0.1.0 (bb499cd); 2026-11-26T23:04:31Z\n\n${table}\n## Other\n\n${table}`);
    assert.is(tablesWithoutProvenance(page).length, 1, 'a section\'s provenance covers its own tables only');
    writeFileSync(page, `# Page\n\nFrom [the run](bench/results/peers.json).\n\n## Speed\n\n${table}`);
    assert.equal(tablesWithoutProvenance(page), [], 'a results file with a host line is provenance');
    const peers = resultsCommit('peers.json')!;
    writeFileSync(page, `9× node-redlock (\`npm run bench:peers\`, 2026-11-26, 2-core AMD EPYC VM, pipelock ${peers}).\n`);
    assert.equal(staleCitations(page), []);
    writeFileSync(page, '9× node-redlock (`npm run bench:peers`, 2026-11-20, 2-core AMD EPYC VM, pipelock 0123abc).\n');
    assert.match(staleCitations(page)[0] ?? '', `cites bench:peers at 0123abc, but bench/results/peers.json is from ${peers}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('every error class of src/errors.ts is exported from pipelock and has a code and TSDoc', () => {
  for (const c of errorClasses()) {
    assert.type((pipelock as Record<string, unknown>)[c.name], 'function', `${c.name} is exported from src/index.ts`);
    assert.ok(c.doc !== '', `${c.name} has TSDoc`);
    if (c.name !== 'PipelockError') assert.ok(c.code !== undefined, `${c.name} passes an ERR_PIPELOCK_* code`);
  }
});

test('relative links and anchors in README.md and docs/*.md resolve; shown files match', () => {
  assert.equal(checkDocs(), []);
});

test('the TypeScript blocks of README.md and docs/*.md typecheck against the sources', () => {
  assert.ok(snippets().length >= 5, `${snippets().length} snippets`);
  assert.equal(checkSnippets(), []);
});

test('a generated description cut by a line starting with @word, or ending mid-sentence, is refused', () => {
  assert.equal(descriptionProblems('It runs no scripts for this user (an ACL without', ['scripting']).length, 2);
  assert.equal(descriptionProblems('Per-attempt time budget, in ms.', ['default']), []);
});

test('a src/ path that does not exist, an example importing the sources by path, and a relative link in tools/README.md are problems', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pipelock-docs-'));
  try {
    writeFileSync(join(dir, 'page.md'), 'See src/settings.ts, `src/local/masters.ts`, tools/src/cli/ and src/**/*.ts.\n');
    assert.equal(stalePaths(join(dir, 'page.md')).map((p) => p.replace(/^.*page\.md/, 'page.md')), ['page.md:1: src/local/masters.ts: no such file or folder']);
    writeFileSync(join(dir, 'x.ts'), "import { Redlock } from '../src/index.js';\nimport { startMasters } from 'pipelock/testing';\n");
    assert.equal(sourceImports(dir).length, 1);
    writeFileSync(join(dir, 'README.md'), 'See [load tests](../docs/load-testing.md) and [doctor](https://github.com/pipelock/pipelock/blob/main/docs/operating.md).\n');
    assert.equal(relativeLinks(join(dir, 'README.md')).map((p) => p.replace(/^.*README\.md/, 'README.md')), ['README.md:1: ../docs/load-testing.md: a relative link, dead on npm\'s page of a package published from a subfolder (use an absolute URL)']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('docs/deployments.md shows the generated ACL line and doctor\'s words for one server', () => {
  const page = readFileSync(join(repoRoot, 'docs', 'deployments.md'), 'utf8');
  assert.ok(page.includes(pipelock.aclSetUser('app', pipelock.aclGrants(pipelock.ACL_FEATURES, 'locks:*'))), 'the ACL SETUSER line is aclSetUser()\'s');
  assert.ok(page.replace(/\s+/g, ' ').includes(kSingleTradeoff), 'the trade-off of one server in doctor\'s words');
});

test('slugs are GitHub\'s', () => {
  assert.is(slug('Load tests: `pipelock loadtest`'), 'load-tests-pipelock-loadtest');
  assert.is(slug('Several load generators: `--start-at` and `report merge`'), 'several-load-generators---start-at-and-report-merge');
  assert.is(slug('Metrics: `pipelock/metrics`'), 'metrics-pipelockmetrics');
  assert.is(slug('Valkey, Redis 8 and the script-free path'), 'valkey-redis-8-and-the-script-free-path');
});

test('README: Install and Example first, then the two commands .ci/run and contributors run; at most ~200 lines', () => {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const ci = readFileSync(join(repoRoot, '.ci', 'run'), 'utf8');
  assert.ok(/^npm ci && npm test$/m.test(ci), '.ci/run runs npm ci && npm test');
  const sections = [...readme.matchAll(/^## (.*)$/gm)].map((m) => m[1]);
  assert.equal(sections.slice(0, 3), ['Install', 'Example', 'Contributing: quick start in a clone']);
  const block = readme.slice(readme.indexOf('## Contributing'));
  assert.ok(block.includes('npm ci && npm run loadtest    #'), 'the load test command');
  assert.ok(block.includes('npm ci && npm test            #'), 'the test command .ci/run calls');
  assert.ok(readme.split('\n').length <= 200, 'README.md stays a front page');
});

test.run();
