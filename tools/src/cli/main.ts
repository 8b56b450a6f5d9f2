#!/usr/bin/env node
/** `pipelock <command>`: loadtest, report merge, report compare, doctor, inspect, release. */
import { EXIT } from './errors.js';
import { doctor } from './doctor.js';
import { inspect } from './inspect.js';
import { loadtest } from './loadtest.js';
import { release } from './release.js';
import { report } from './report.js';

const USAGE = `usage: pipelock <command> [flags]

commands:
  loadtest        drive a Redlock over N masters and measure it (pipelock loadtest --help)
  report merge    combine --json results of runs made at once on several machines (pipelock report --help)
  report compare  compare runs of a change against a baseline; exit 1 on a regression (pipelock report compare --help)
  doctor          check the masters for what breaks Redlock (pipelock doctor --help)
  inspect         list held and leaked locks, fencing counters, run-once markers (pipelock inspect --help)
  release         take a lock away from its holder, with a reason it is told (pipelock release --help)`;

async function main(args: readonly string[]): Promise<number> {
  const [command, ...rest] = args;
  switch (command) {
    case 'loadtest':
      return loadtest(rest);
    case 'report':
      return report(rest);
    case 'doctor':
      return doctor(rest);
    case 'inspect':
      return inspect(rest);
    case 'release':
      return release(rest);
    case '--help':
    case '-h':
    case 'help':
      console.log(USAGE);
      return EXIT.ok;
    default:
      console.error(command === undefined ? USAGE : `pipelock: unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
      return EXIT.usage;
  }
}

const code = await main(process.argv.slice(2));
process.exitCode = code;
// Everything this process started is stopped by now; a handle some library left open must not
// keep a finished command alive.
setTimeout(() => process.exit(code), 2_000).unref();
