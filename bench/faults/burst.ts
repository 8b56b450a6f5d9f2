/**
 * The fault suite's overload scenario (`npm run faults` and `faults:ci` run it after the others):
 * a burst of acquisitions on distinct keys, issued at once with retryCount 0, first on 5 healthy
 * masters (the control) and then with one master SIGSTOPped as soon as the first lock is won.
 * The quorum of the other four must serve the whole burst (every acquisition succeeds), the paused
 * master may cost the burst no more than about one budget over the control, and once the master is
 * resumed and every lock released at once (retryCount 0 as well), no release is reported failed
 * and no key is left on any master.
 *
 *   node --conditions=pipelock-source --import tsx bench/faults/burst.ts [--short]      (20,000 locks; full: 100,000)
 * Exits 1 on a problem.
 */
import { parseArgs } from 'node:util';
import { Redlock, type Lock } from '../../src/index.js';
import { startMasters, type LocalMasters } from '../../src/testing/masters.js';
import { withClient } from '../../tools/src/shared/admin.js';

const { values } = parseArgs({ options: { short: { type: 'boolean', default: false } } });
const kLocks = values.short ? 20_000 : 100_000;
const kNodeTimeout = 250;
const problems: string[] = [];

/** One burst; `pause` stops master 2 once the first lock is won. Returns its time and what was left. */
async function burst(masters: LocalMasters, name: string, pause: boolean): Promise<number> {
  const redlock = new Redlock(masters.urls, { retryCount: 0, nodeTimeout: kNodeTimeout });
  const paused = masters.masters[2]!;
  try {
    await redlock.ready();
    const start = performance.now();
    const calls: Promise<Lock>[] = [];
    for (let i = 0; i < kLocks; i++) calls.push(redlock.acquire([`burst:${name}:${i}`], 60_000));
    if (pause) {
      await Promise.race(calls);
      paused.pause();
    }
    const results = await Promise.allSettled(calls);
    const ms = performance.now() - start;
    paused.resume();
    const failed = results.filter((r) => r.status === 'rejected');
    const codes: Record<string, number> = {};
    for (const r of failed) {
      const code = (r.reason as { code?: string }).code ?? 'other';
      codes[code] = (codes[code] ?? 0) + 1;
    }
    console.log(`${name}: ${kLocks - failed.length} of ${kLocks} acquired in ${(ms / 1000).toFixed(2)} s (${((1000 * ms) / kLocks).toFixed(1)} µs per lock)${failed.length > 0 ? `; failed: ${JSON.stringify(codes)}` : ''}`);
    if (failed.length > 0) problems.push(`${name}: ${failed.length} acquisitions failed (${JSON.stringify(codes)})`);
    const locks = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    // Every master's answer to every release, the resumed one's too: its late SETs run before the deletes, in order.
    // The releases go all at once too, with retryCount 0, while the resumed master answers its
    // backlog: a master answering, in order, what the client sent it is not failing (issue 47).
    const released = await Promise.allSettled(locks.map((lock) => lock.release()));
    const unreleased = released.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
    if (unreleased.length > 0) problems.push(`${name}: ${unreleased.length} releases reported failed, first: ${String(unreleased[0]).slice(0, 300)}`);
    await Promise.all(released.flatMap((r) => (r.status === 'fulfilled' ? [r.value.complete()] : [])));
    return ms;
  } finally {
    paused.resume();
    await redlock.quit();
  }
}

const masters = await startMasters({ count: 5 });
try {
  const control = await burst(masters, 'control', false);
  const withPause = await burst(masters, 'paused', true);
  const left = await Promise.all(masters.urls.map((url) => withClient(url, (client) => client.sendCommand<number>(['DBSIZE']))));
  console.log(`paused ÷ control: ${(withPause / control).toFixed(2)}× (${((withPause - control) / 1000).toFixed(2)} s more; one budget is ${kNodeTimeout} ms); keys left per master: ${left.join(', ')}`);
  // About one budget over the control, with room for this machine's noise (the control's own time again).
  if (withPause > 2 * control + kNodeTimeout) problems.push(`the paused burst took ${withPause.toFixed(0)} ms, more than twice the control's ${control.toFixed(0)} ms plus a budget`);
  if (left.some((n) => n > 0)) problems.push(`keys left after every release: ${left.join(', ')}`);
} finally {
  await masters.close();
}
if (problems.length > 0) {
  console.error(`faults burst: FAIL: ${problems.join('; ')}`);
  process.exit(1);
}
console.log('faults burst: ok');
