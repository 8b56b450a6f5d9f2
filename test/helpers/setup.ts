/**
 * Imported by every test file (and preloaded by scripts/run-tests.ts): an unhandled rejection or
 * uncaught exception fails the run instead of vanishing between tests or killing the process
 * before the suites' `after` hooks have stopped their servers. With PIPELOCK_TEST_SERVER=valkey,
 * the masters the tests start are Valkey (test/helpers/valkey.ts).
 */
import { selectTestServer } from './valkey.js';
import { cpuLine, cpuOfProcess } from './cpu.js';

selectTestServer();

const kInstalled = Symbol.for('pipelock.test.setup');
const registry = globalThis as { [kInstalled]?: true };

if (registry[kInstalled] !== true) {
  registry[kInstalled] = true;
  let failures = 0;
  const record = (kind: string, error: unknown): void => {
    failures++;
    process.exitCode = 1;
    console.error(`\n  ✘ ${kind} (fails the run):`, error);
  };
  process.on('unhandledRejection', (reason) => {
    record('unhandled rejection', reason);
  });
  process.on('uncaughtException', (error) => {
    record('uncaught exception', error);
  });
  // The test runner asks a process that lives on after its summary what it holds open (scripts/tests/job.ts).
  process.on('SIGUSR2', () => {
    console.error(`\n  ✘ still running after the summary; open: ${JSON.stringify(process.getActiveResourcesInfo())}`);
  });
  // uvu sets process.exitCode from its own tally when it finishes, which would erase ours.
  process.on('exit', () => {
    const cpu = process.env.PIPELOCK_TEST_CPU === undefined ? undefined : cpuOfProcess();
    if (cpu !== undefined) process.stderr.write(`${cpuLine(cpu)}\n`);
    if (failures === 0) return;
    process.exitCode = 1;
    console.error(`  ${failures} unhandled error(s) during the run; see above.`);
  });
}
