/**
 * The static checks, in one process: `check.ts typecheck lint` (npm test's first job), `check.ts lint` (`npm run lint`).
 *
 * typecheck: tsconfig.json's program, checked as `tsc -p tsconfig.json` checks it (`npm run typecheck` still runs tsc).
 * lint: ESLint's type-aware rules over the same program (eslint.config.js; parserOptions.programs hands it the
 * program built here instead of a project path, so the tree is parsed and checked once, not once per tool), then the
 * house's rules (layers, paths, comment share) and TypeDoc's warnings. Quiet, on the 2-core machine kind (2026-11-30):
 * tsc, then the lint's five steps, 109.3 s of CPU; this, 80.5 s.
 * Exits 1 when a check fails (each one runs, so one run names every failure), 2 on bad arguments.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import ts from 'typescript';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const kSteps = new Set(['typecheck', 'lint']);
const steps = process.argv.slice(2);
if (steps.length === 0 || steps.some((step) => !kSteps.has(step))) {
  console.error(`check: name the checks to run, of ${[...kSteps].join(', ')}; got ${JSON.stringify(steps)}`);
  process.exit(2);
}

const host: ts.FormatDiagnosticsHost = {
  getCanonicalFileName: (name) => name,
  getCurrentDirectory: () => root,
  getNewLine: () => '\n',
};

/** A tsconfig's program, with its configuration's own errors. */
function program(config: string): { program: ts.Program; errors: readonly ts.Diagnostic[] } {
  const errors: ts.Diagnostic[] = [];
  const parsed = ts.getParsedCommandLineOfConfigFile(join(root, config), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => errors.push(diagnostic),
  });
  if (parsed === undefined) return { program: ts.createProgram([], {}), errors };
  const made = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options, projectReferences: parsed.projectReferences,
    configFileParsingDiagnostics: parsed.errors });
  return { program: made, errors: [...errors, ...parsed.errors] };
}

const failed: string[] = [];
const started = performance.now();
const elapsed = (): string => `${((performance.now() - started) / 1000).toFixed(1)} s`;
const main = program('tsconfig.json');

if (steps.includes('typecheck')) {
  const diagnostics = [...main.errors, ...ts.getPreEmitDiagnostics(main.program)];
  if (diagnostics.length > 0) {
    process.stdout.write((process.stdout.isTTY ? ts.formatDiagnosticsWithColorAndContext : ts.formatDiagnostics)(diagnostics, host));
    failed.push(`typecheck (${diagnostics.length} error${diagnostics.length === 1 ? '' : 's'})`);
  }
  console.log(`check: typecheck ${diagnostics.length === 0 ? 'ok' : 'failed'} (${elapsed()})`);
}

if (steps.includes('lint')) {
  const v5 = program('test/package/v5/tsconfig.json');
  const eslint = new ESLint({
    cwd: root,
    // Only where eslint.config.js types its rules: the plain JavaScript it lints untyped stays untyped.
    overrideConfig: [{
      files: ['**/*.ts', '**/*.cts', '**/*.mts'],
      languageOptions: { parserOptions: { programs: [main.program, v5.program] } },
    }],
  });
  const results = await eslint.lintFiles(['.']);
  const problems = results.reduce((sum, result) => sum + result.errorCount + result.warningCount, 0);
  if (problems > 0) {
    process.stdout.write(await (await eslint.loadFormatter('stylish')).format(results));
    failed.push(`eslint (${problems} problem${problems === 1 ? '' : 's'})`);
  }
  console.log(`check: eslint ${problems === 0 ? 'ok' : 'failed'}, ${results.length} files (${elapsed()})`);
  const tsx = ['--conditions=pipelock-source', '--import', 'tsx'];
  const commands: readonly (readonly [string, string, readonly string[]])[] = [
    ['layers', process.execPath, [...tsx, 'scripts/check-layers.ts']],
    ['paths', process.execPath, [...tsx, 'scripts/check-paths.ts']],
    ['comment share', process.execPath, [...tsx, 'scripts/docs/comment-share.ts', '--max', '22']],
    ['typedoc', process.execPath, [join(root, 'node_modules', 'typedoc', 'bin', 'typedoc'), '--emit', 'none', '--logLevel', 'Warn']],
  ];
  for (const [name, command, args] of commands) {
    const run = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
    if (run.status !== 0) failed.push(`${name} (exit ${run.status ?? run.signal})`);
    console.log(`check: ${name} ${run.status === 0 ? 'ok' : 'failed'} (${elapsed()})`);
  }
}

if (failed.length > 0) {
  console.error(`check: failed: ${failed.join('; ')}`);
  process.exit(1);
}
