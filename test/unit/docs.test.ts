import '../helpers/setup.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import * as pipelock from '../../src/index.js';
import { checkDocs, slug } from '../../scripts/docs/check.js';
import { committedArchitecture, renderArchitecture } from '../../scripts/docs/architecture.js';
import { committedDashboard, renderDashboard } from '../../scripts/docs/dashboard.js';
import { committedErrors, errorClasses, renderErrors } from '../../scripts/docs/errors.js';
import { committedSettings, renderSettings } from '../../scripts/docs/settings.js';
import { checkSnippets, snippets } from '../../scripts/docs/snippets.js';
import { repoRoot } from '../../scripts/docs/tsdoc.js';

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

test('slugs are GitHub\'s', () => {
  assert.is(slug('Load tests: `pipelock loadtest`'), 'load-tests-pipelock-loadtest');
  assert.is(slug('Several load generators: `--start-at` and `report merge`'), 'several-load-generators---start-at-and-report-merge');
  assert.is(slug('Metrics: `pipelock/metrics`'), 'metrics-pipelockmetrics');
  assert.is(slug('Valkey, Redis 8 and the script-free path'), 'valkey-redis-8-and-the-script-free-path');
});

test('README: the quick start first, with the command .ci/run runs; at most ~200 lines', () => {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const ci = readFileSync(join(repoRoot, '.ci', 'run'), 'utf8');
  assert.ok(/^npm ci && npm test$/m.test(ci), '.ci/run runs npm ci && npm test');
  const start = readme.indexOf('## Quick start (fresh machine)');
  assert.ok(start > 0 && start < 600, 'the quick start is the first section');
  assert.ok(readme.includes('npm ci && npm run loadtest    #'), 'the load test command');
  assert.ok(readme.includes('npm ci && npm test            #'), 'the test command .ci/run calls');
  assert.ok(readme.split('\n').length <= 200, 'README.md stays a front page');
});

test.run();
