import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { mastersSuite } from '../helpers/masters.js';
import { timed } from '../helpers/timeout.js';
import { Redlock } from '../../src/index.js';

// An election's record is written, read and erased on every master; like every quorum call it is
// decided once the answers settle it, so a paused master (a minority) costs nothing while the
// others answer. Before, each record call waited for that master's nodeTimeout.
const test = mastersSuite('election with a paused master', { count: 5, flushEach: true, healEach: true });

const kNodeTimeout = 3_000;
const timing = { lease: 10_000, renewDeadline: 4_000, retryPeriod: 500 };

test('campaign, leader(), proclaim() and resign() each finish in far less than the node timeout with one master paused', timed(20_000, async ({ masters }) => {
  const redlock = new Redlock(masters.urls, { nodeTimeout: kNodeTimeout });
  const observer = new Redlock(masters.urls, { nodeTimeout: kNodeTimeout });
  try {
    await Promise.all([redlock.ready(), observer.ready()]);
    masters.masters[4]!.pause();
    const election = redlock.election('slow-master', timing);
    const watching = observer.election('slow-master', timing);
    const took: Record<string, number> = {};
    const time = async <T>(name: string, fn: () => Promise<T>): Promise<T> => {
      const t0 = performance.now();
      const out = await fn();
      took[name] = Math.round(performance.now() - t0);
      return out;
    };
    assert.is(await time('leader (none)', () => watching.leader()), undefined);
    const term = await time('campaign', () => election.campaign({ value: 'a' }));
    assert.equal(await time('leader', () => watching.leader()), { term: term.term, value: 'a' });
    await time('proclaim', () => term.proclaim('b'));
    assert.equal(await watching.leader(), { term: term.term, value: 'b' });
    await time('resign', () => term.resign());
    assert.is(await time('leader (after)', () => watching.leader()), undefined);
    for (const [name, ms] of Object.entries(took)) assert.ok(ms < kNodeTimeout / 3, `${name} took ${ms} ms with one master paused (node timeout ${kNodeTimeout} ms): ${JSON.stringify(took)}`);
  } finally {
    masters.masters[4]!.resume();
    await Promise.allSettled([redlock.quit(), observer.quit()]);
  }
}));

test.run();
