import '../helpers/setup.js';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

// In this repository the tools import the library by its package name; tsconfig.json's paths, which
// tsx applies (the npm scripts, run-tests, and the spawns of tests and benchmarks load it), make that
// name the library's sources, in worker threads too, so nothing measures or tests a dist/ older than
// src/, while the exports map names only what the tarball ships.
const test = suite('pipelock resolves to the sources');
const root = fileURLToPath(new URL('../..', import.meta.url));
const kEntries: [string, string][] = [
  ['pipelock', 'index.ts'], ['pipelock/testing', 'testing/masters.ts'], ['pipelock/metrics', 'metrics/index.ts'], ['pipelock/protocol', 'protocol/index.ts'],
];
const specifiers = kEntries.map(([specifier]) => specifier);
const sources = kEntries.map(([, file]) => join(root, 'src', file));

test('in the tests (scripts/run-tests.ts)', () => {
  assert.equal(specifiers.map((specifier) => fileURLToPath(import.meta.resolve(specifier))), sources);
});

test('under npm run loadtest\'s node flags, in the process and in the piscina worker threads it starts', async () => {
  const script = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.loadtest!;
  const words = script.split(' ');
  const flags = words.slice(1, words.findIndex((word) => word.endsWith('.ts')));
  const { stdout } = await promisify(execFile)(process.execPath, [...flags, join(root, 'test', 'helpers', 'resolve-probe.ts'), JSON.stringify(specifiers)], { cwd: root });
  assert.equal(JSON.parse(stdout), { main: sources, worker: sources });
});

test('a stack trace names each module by its own path: the test run\'s transpiled tree maps back to the sources', () => {
  const stack = new Error('here').stack ?? '';
  assert.ok(stack.includes(`${fileURLToPath(import.meta.url)}:`), stack);
});

test.run();
