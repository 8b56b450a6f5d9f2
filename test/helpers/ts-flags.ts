import { fileURLToPath } from 'node:url';

const kLoader = fileURLToPath(new URL('../../scripts/tests/loader/register.mjs', import.meta.url));

/**
 * Node's flags for a child process that runs a .ts module: the test run's loader where run-tests set one up
 * (PIPELOCK_TEST_JS: the transpiled tree, inherited), else tsx. tsx cost each child about a second of CPU.
 */
export function tsFlags(): string[] {
  return process.env.PIPELOCK_TEST_JS === undefined
    ? ['--conditions=pipelock-source', '--import', 'tsx']
    : ['--conditions=pipelock-source', '--enable-source-maps', '--import', kLoader];
}
