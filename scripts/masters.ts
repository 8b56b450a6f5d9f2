/**
 * Starts local redis-server masters and keeps them until SIGINT/SIGTERM:
 * `node --import tsx scripts/masters.ts [--count N] [--host H] [--json]`. See --help.
 */
import { parseArgs } from 'node:util';
import { InvalidOptionError, startMasters } from '../src/testing/masters.js';

const usage = `usage: node --import tsx scripts/masters.ts [--count N] [--host H] [--json]

Starts N independent redis-server masters on free ports (no persistence, each in its own temp dir),
prints one redis:// URL per line, and keeps them running until SIGINT (Ctrl-C) or SIGTERM.
  --count N   how many masters, 1..64 (default 5)
  --host H    address to bind and print (default 127.0.0.1)
  --json      after the URLs, also print one JSON line: {"urls":[…],"ports":[…],"pids":[…]}
  --help      show this
The binary is PIPELOCK_REDIS_SERVER if set, else redis-server on PATH (see scripts/ensure-redis.sh).`;

function usageError(message: string): never {
  console.error(`masters: ${message}\nTry --help.`);
  process.exit(2);
}

let parsed;
try {
  parsed = parseArgs({
    options: {
      count: { type: 'string' },
      host: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
} catch (error) {
  usageError((error as Error).message);
}
const { values } = parsed;
if (values.help === true) {
  console.log(usage);
  process.exit(0);
}
if (values.count !== undefined && !/^\d+$/.test(values.count)) {
  usageError(`--count must be an integer from 1 to 64, got ${JSON.stringify(values.count)}`);
}

const masters = await startMasters({
  count: values.count === undefined ? undefined : Number(values.count),
  host: values.host,
  // This script owns the signals: it stops the masters itself, then exits.
  handleSignals: false,
}).catch((error: unknown) => {
  if (error instanceof InvalidOptionError && (error.option === 'count' || error.option === 'host')) {
    usageError(`--${error.message}`);
  }
  console.error(`masters: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});

for (const url of masters.urls) console.log(url);
if (values.json === true) {
  const { urls } = masters;
  console.log(JSON.stringify({ urls, ports: masters.masters.map((m) => m.port), pids: masters.masters.map((m) => m.pid) }));
}
console.error(`masters: ${masters.urls.length} running; Ctrl-C or SIGTERM stops them`);

// The servers are unref'd child processes, so something must hold the event loop open.
const keepAlive = setInterval(() => undefined, 1 << 30);
let stopping = false;
const stop = (signal: NodeJS.Signals): void => {
  if (stopping) return;
  stopping = true;
  console.error(`masters: ${signal}, stopping`);
  masters.close().then(
    () => {
      clearInterval(keepAlive);
    },
    (error: unknown) => {
      console.error('masters: stopping failed:', error);
      process.exitCode = 1;
      clearInterval(keepAlive);
    },
  );
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
