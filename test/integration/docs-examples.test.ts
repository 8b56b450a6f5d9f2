import '../helpers/setup.js';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as assert from 'uvu/assert';
import { mastersSuite } from '../helpers/masters.js';
import { repoRoot } from '../../scripts/docs/tsdoc.js';
import { tsFlags } from '../helpers/ts-flags.js';

/**
 * The README's example (examples/readme.ts, the README's code block by scripts/docs/check.ts) runs
 * as a reader would run it, against local masters given in REDIS_URLS.
 */
const test = mastersSuite('docs examples', { count: 3, flushEach: true });
const run = promisify(execFile);

test('examples/readme.ts acquires, extends, releases on every master, then runs using()', async ({ masters }) => {
  const { stdout, stderr } = await run(process.execPath, [...tsFlags(), join(repoRoot, 'examples', 'readme.ts')], {
    cwd: repoRoot,
    env: { ...process.env, REDIS_URLS: masters.urls.join(',') },
    timeout: 60_000,
  });
  assert.is(stderr, '');
  assert.match(stdout, /^holding orders:42 for \d+ ms more$/m);
  assert.match(stdout, /^released on 3 of 3 masters$/m);
  assert.match(stdout, /^report written under the lock$/m);
});

test('examples/ioredis.ts: the v5 shape on ioredis clients, which quit() closes', async ({ masters }) => {
  const { stdout, stderr } = await run(process.execPath, [...tsFlags(), join(repoRoot, 'examples', 'ioredis.ts')], {
    cwd: repoRoot,
    env: { ...process.env, REDIS_URLS: masters.urls.join(',') },
    timeout: 60_000,
  });
  assert.is(stderr, '');
  assert.equal(stdout.trim().split('\n'), ['second acquire refused: true', 'released; attempts: 1', 'clients closed: true']);
});

test.run();
