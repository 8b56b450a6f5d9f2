/**
 * Where the tests find Valkey, and the switch that runs a test file's masters on it.
 * The rule is the one scripts/ensure-valkey.sh follows: PIPELOCK_VALKEY_SERVER when set, else the
 * link ${XDG_CACHE_HOME:-$HOME/.cache}/pipelock/valkey-server to the build that script caches.
 */
import { accessSync, constants } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The link scripts/ensure-valkey.sh keeps to its cached build; empty XDG_CACHE_HOME counts as unset, as in bash. */
export function cachedValkeyServer(): string {
  const cacheHome = process.env.XDG_CACHE_HOME;
  return join(cacheHome === undefined || cacheHome === '' ? join(homedir(), '.cache') : cacheHome, 'pipelock', 'valkey-server');
}

/** The Valkey binary to start (a path, or a command name from PIPELOCK_VALKEY_SERVER); throws when there is none. */
export function valkeyServer(): string {
  const fromEnv = process.env.PIPELOCK_VALKEY_SERVER;
  const server = fromEnv === undefined || fromEnv === '' ? cachedValkeyServer() : fromEnv;
  // A bare command name is looked up on PATH when spawned; startMasters names it if that fails.
  if (!server.includes('/')) return server;
  try {
    accessSync(server, constants.X_OK);
  } catch (error) {
    const source = server === fromEnv ? 'PIPELOCK_VALKEY_SERVER' : 'the cached build';
    throw new Error(
      `Valkey not found: ${source} ${server} is not an executable; run npm run ensure-valkey ` +
        '(as root it builds Valkey 9 from Debian unstable\'s source) or set PIPELOCK_VALKEY_SERVER=/path/to/valkey-server',
      { cause: error },
    );
  }
  return server;
}

/**
 * PIPELOCK_TEST_SERVER=valkey (the valkey tier of scripts/run-tests.ts, or a single test file run
 * by hand) points every master the tests start at Valkey: startMasters reads
 * PIPELOCK_REDIS_SERVER when it is called, and CLI tests' child processes inherit it.
 * Unset or `redis` leaves redis-server; any other value is refused rather than ignored.
 */
export function selectTestServer(): void {
  const choice = process.env.PIPELOCK_TEST_SERVER;
  if (choice === undefined || choice === '' || choice === 'redis') return;
  if (choice !== 'valkey') throw new Error(`PIPELOCK_TEST_SERVER must be redis or valkey, got ${JSON.stringify(choice)}`);
  process.env.PIPELOCK_REDIS_SERVER = valkeyServer();
}
