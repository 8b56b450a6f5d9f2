import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { Campaigner } from '../helpers/election-campaigners.js';
import { Ledger, ledgerMemory, msBetween, now, type Entry } from '../helpers/election-ledger.js';
import { mastersSuite } from '../helpers/masters.js';
import { timed } from '../helpers/timeout.js';

// A leader paused past its lease (a stopped process, a blocked event loop) while another campaigner
// waits: the lease's promise is that the other leads only after the paused one's validity ended,
// and the paused one, once it runs again, sees its signal aborted before it acts.
const test = mastersSuite('election: a leader paused past its lease', { count: 3, flushEach: true, healEach: true });

const timing = { lease: 1500, renewDeadline: 600, retryPeriod: 200 };
const kSlowMs = 15_000;
/** How often the paused leader acts while it believes it leads, ms. */
const kActEveryMs = 20;

const running: Campaigner[] = [];
test.after.each(async () => {
  await Promise.all(running.splice(0).map((c) => c.close()));
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What the paused leader did after its pause: no action with its term once its validity had
 * ended (it must see the signal aborted first), it lost the term promptly, and it never led with it again.
 */
async function checkResumed(paused: Campaigner, entry: Entry, resumed: bigint): Promise<void> {
  const lost = await paused.next('lost', kSlowMs, (r) => r.term === entry.term);
  assert.is(lost.reason, 'LockLostError');
  const late = paused.all('act').filter((a) => a.at > entry.until);
  assert.equal(late.map((a) => `acted ${msBetween(entry.until, a.at).toFixed(1)} ms past its validity`), [], 'no action after the validity ended');
  // It runs again at `resumed`; its first timers are due then.
  assert.ok(msBetween(resumed, lost.at) < 1000, `lost ${msBetween(resumed, lost.at).toFixed(1)} ms after it ran again`);
  await sleep(timing.retryPeriod * 3);
  assert.is(paused.all('leading').filter((r) => r.term === entry.term).length, 1, 'the old term led once');
}

test('a leader in a child process SIGSTOPped past its lease: another leads only after its validity, with a greater term; on SIGCONT it stops before acting', timed(90_000, async ({ masters }) => {
  const memory = ledgerMemory();
  const ledger = new Ledger(memory);
  const child = Campaigner.child({ who: 0, urls: masters.urls, name: 'paused', timing, actEveryMs: kActEveryMs }, ledger);
  const other = Campaigner.thread({ who: 1, urls: masters.urls, name: 'paused', timing, ledger: memory, actEveryMs: 0 });
  running.push(child, other);
  await Promise.all([child.next('ready', kSlowMs), other.next('ready', kSlowMs)]);
  child.send({ type: 'campaign', value: 'child' });
  const first = await child.next('leading', kSlowMs);
  other.send({ type: 'campaign', value: 'thread' });
  await sleep(timing.retryPeriod * 2);
  process.kill(child.pid!, 'SIGSTOP');
  let resumed: bigint;
  try {
    const second = await other.next('leading', timing.lease * 2 + kSlowMs);
    const entry = ledger.entries().find((e) => e.term === first.term)!;
    assert.ok(second.at > entry.until, `the next leader began ${msBetween(second.at, entry.until).toFixed(1)} ms before the paused one's validity ended`);
    assert.ok(second.term > first.term, `${second.term} > ${first.term}`);
  } finally {
    resumed = now();
    process.kill(child.pid!, 'SIGCONT');
  }
  const entry = ledger.entries().find((e) => e.term === first.term)!;
  await checkResumed(child, entry, resumed);
  // Back in the race, it leads only with a new term, greater than its successor's.
  const successor = ledger.entries().find((e) => e.who === 1)!;
  child.send({ type: 'campaign', value: 'child' });
  other.send({ type: 'resign' });
  const again = await child.next('leading', kSlowMs, (r) => r.term !== first.term);
  assert.ok(again.term > successor.term, `${again.term} > ${successor.term}`);
}));

test('a leader whose event loop is blocked past its lease (a worker in Atomics.wait): the same', timed(90_000, async ({ masters }) => {
  const memory = ledgerMemory();
  const ledger = new Ledger(memory);
  const [blocked, other] = [0, 1].map((who) => Campaigner.thread({ who, urls: masters.urls, name: 'blocked', timing, ledger: memory, actEveryMs: who === 0 ? kActEveryMs : 0 }));
  running.push(blocked!, other!);
  await Promise.all([blocked!.next('ready', kSlowMs), other!.next('ready', kSlowMs)]);
  blocked!.send({ type: 'campaign', value: 'blocked' });
  const first = await blocked!.next('leading', kSlowMs);
  other!.send({ type: 'campaign', value: 'other' });
  await sleep(timing.retryPeriod * 2);
  blocked!.send({ type: 'block', ms: timing.lease * 3 });
  const second = await other!.next('leading', timing.lease * 3 + kSlowMs);
  const block = await blocked!.next('blocked', kSlowMs);
  const entry = ledger.entries().find((e) => e.term === first.term)!;
  assert.ok(second.at > entry.until, `the next leader began ${msBetween(second.at, entry.until).toFixed(1)} ms before the blocked one's validity ended`);
  assert.ok(second.term > first.term, `${second.term} > ${first.term}`);
  await checkResumed(blocked!, entry, block.to);
}));

test.run();
