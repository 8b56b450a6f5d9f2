#!/usr/bin/env node
/** `pipelock <command>`: loadtest, report merge. */
import { EXIT } from './errors.js';
import { loadtest } from './loadtest.js';
import { report } from './report.js';

const USAGE = `usage: pipelock <command> [flags]

commands:
  loadtest        drive a Redlock over N masters and measure it (pipelock loadtest --help)
  report merge    combine --json results of several runs exactly (pipelock report --help)`;

async function main(args: readonly string[]): Promise<number> {
  const [command, ...rest] = args;
  switch (command) {
    case 'loadtest':
      return loadtest(rest);
    case 'report':
      return report(rest);
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
