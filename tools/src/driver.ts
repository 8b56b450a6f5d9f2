/**
 * `pipelock-tools/driver`: pipelock cycles measured as `pipelock loadtest` measures its own, for other
 * load generators to drive (artillery-engine-pipelock), with the scenario file's rules for a mix entry.
 */
export { Driver, type CycleFigures, type DriverOptions } from './load/driver.js';
export { readEntry } from './cli/scenario-file.js';
export { int, parseServers, time } from './cli/args.js';
export { UsageError } from './cli/errors.js';
export { errorCode } from './load/meter.js';
export type { MixEntry } from './load/scenario.js';
export type { RunResult } from './load/result.js';
