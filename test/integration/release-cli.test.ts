import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { cli } from '../helpers/cli.js';
import { mastersSuite, probesEach } from '../helpers/masters.js';
import { timed } from '../helpers/timeout.js';
import { LockRevokedError, Redlock } from '../../src/index.js';

// `pipelock release --force`: an operator takes a lock away; nothing is written without --yes.
const test = mastersSuite('pipelock release', { count: 3, flushEach: true });
const probes = probesEach(test);

test('without --yes (or --reason) nothing is written and it exits 2; with them the holder hears the reason', timed(60_000, async ({ masters }) => {
  const holder = new Redlock(masters.urls, { retryCount: 0, watchHeld: true });
  try {
    await holder.ready();
    const lock = await holder.acquire(['job:7'], 20_000, { autoExtend: true });
    const servers = masters.urls.join(',');
    const unconfirmed = await cli(['release', '--servers', servers, '--force', 'job:7', '--reason', 'stuck']);
    assert.is(unconfirmed.code, 2, unconfirmed.stderr);
    assert.match(unconfirmed.stderr, /--yes is required to write/);
    const noReason = await cli(['release', '--servers', servers, '--force', 'job:7', '--yes']);
    assert.is(noReason.code, 2, noReason.stderr);
    assert.match(noReason.stderr, /--reason is required/);
    assert.equal(await Promise.all(probes.map((probe) => probe.get('job:7'))), probes.map(() => lock.value), 'still held everywhere');
    assert.is(lock.signal!.aborted, false);

    const aborted = new Promise<unknown>((resolve) => { lock.signal!.addEventListener('abort', () => { resolve(lock.signal!.reason); }, { once: true }); });
    const done = await cli(['release', '--servers', servers, '--force', 'job:7', '--reason', 'stuck for an hour', '--yes']);
    assert.is(done.code, 0, done.stderr);
    assert.match(done.stdout, /force-released on 3 of 3 masters \(it was held\)/);
    const reason = await aborted;
    assert.instance(reason, LockRevokedError);
    assert.is((reason as LockRevokedError).reason, 'stuck for an hour');
    assert.equal(await Promise.all(probes.map((probe) => probe.get('job:7'))), [null, null, null]);
  } finally {
    await holder.quit();
  }
}));

test.run();
