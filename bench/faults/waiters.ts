/**
 * The fault suite's waiting scenario (`npm run faults` and `faults:ci` run it after the others):
 * 1,000 acquire calls in 10 Redlocks (as 10 processes would be) wait for one hot key.
 *
 *  1. One release with 1,000 waiters: the masters' command counts over the handoff show its cost
 *     grows with the Redlocks (one network waiter per resource per process), not the waiters.
 *  2. Wake-ups lost: while the waiters drain (1 ms holds), every watch connection is killed every
 *     300 ms and one master is SIGKILLed and restarted empty after 1.5× the lock duration
 *     (Redlock's delayed restart). Every call must settle — acquired or a typed error — within its
 *     retry schedule's bound, no two holders may overlap (a counter the library cannot see), and no
 *     key may be left behind.
 *
 *   node --conditions=pipelock-source --import tsx bench/faults/waiters.ts [--short] [--per-redlock 100]
 * Exits 1 on a problem.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { Redlock, type Lock } from '../../src/index.js';
import { startMasters } from '../../src/testing/masters.js';
import { withClient } from '../../tools/src/shared/admin.js';

const { values } = parseArgs({ options: { short: { type: 'boolean', default: false }, 'per-redlock': { type: 'string', default: '100' } } });
const kRedlocks = 10;
const kPerRedlock = Number(values['per-redlock']);
const kLockMs = 2_000;
const kSettings = { retryCount: values.short ? 60 : 120, retryDelay: 200, retryJitter: 100, nodeTimeout: 250 };
// The longest a call may take: every slot of its schedule at its longest, each attempt a full budget, and 1 s of slack.
const kBoundMs = (kSettings.retryCount + 1) * (kSettings.retryDelay + kSettings.retryJitter + kSettings.nodeTimeout) + 1_000;

const masters = await startMasters({ count: 5 });
const problems: string[] = [];
const redlocks = Array.from({ length: kRedlocks }, () => new Redlock(masters.urls, kSettings));
const holder = new Redlock(masters.urls);
const commands = async (): Promise<number[]> => Promise.all(masters.urls.map((url) => withClient(url, async (client) => {
  const info = await client.sendCommand<string>(['INFO', 'stats']);
  return Number(/total_commands_processed:(\d+)/.exec(info)![1]);
})));

let inside = 0;
let overlaps = 0;
let holdMs = 400;
const settled: { ms: number; outcome: string }[] = [];
try {
  const first = await holder.acquire(['hot'], 60_000);
  const calls = redlocks.flatMap((redlock) => Array.from({ length: kPerRedlock }, async () => {
    const start = performance.now();
    let outcome = 'acquired';
    try {
      const lock: Lock = await redlock.acquire(['hot'], kLockMs);
      if (++inside > 1) overlaps++;
      await delay(holdMs);
      inside--;
      await lock.release().catch(() => undefined);
    } catch (error) {
      outcome = (error as { code?: string }).code ?? String(error);
    }
    settled.push({ ms: performance.now() - start, outcome });
  }));
  // Phase 1: every call refused once and asleep; then one release.
  await delay(1_500);
  const before = await commands();
  await first.release();
  await delay(300); // one 400 ms hold begins and is still running: exactly one handoff in the window
  const after = await commands();
  const perMaster = after.map((n, i) => n - before[i]! - 1); // − the INFO itself
  const worst = Math.max(...perMaster);
  console.log(`one release, ${kRedlocks * kPerRedlock} waiters in ${kRedlocks} Redlocks: ${perMaster.join(', ')} commands per master in the 300 ms after (${(worst / kRedlocks).toFixed(1)} per Redlock at most)`);
  // Per Redlock and master: its head's wake read and attempt, its undo, re-reads, scheduled retries — 10 to 35
  // here (the same with 100 waiters as with 1,000). Polling (wakeups: false) made ~3,000: a few per waiter.
  if (worst >= kRedlocks * kPerRedlock) problems.push(`a release cost ${worst} commands on one master: it grows with the ${kRedlocks * kPerRedlock} waiters, not the ${kRedlocks} Redlocks`);

  // Phase 2: short holds, wake-ups lost throughout, one master killed and restarted late.
  holdMs = 1;
  const faultStart = performance.now();
  const killing = { on: true };
  const killer = (async () => {
    let killed = 0;
    while (killing.on) {
      for (const url of masters.urls) {
        await withClient(url, async (client) => {
          const list = await client.sendCommand<string>(['CLIENT', 'LIST']);
          for (const line of list.split('\n')) {
            const id = /flags=\S*t\S* /.test(line) ? /id=(\d+)/.exec(line)?.[1] : undefined;
            if (id !== undefined) killed += Number(await client.sendCommand(['CLIENT', 'KILL', 'ID', id]));
          }
        }).catch(() => undefined); // the master being restarted
      }
      await delay(300);
    }
    return killed;
  })();
  await masters.masters[0]!.restart({ delayMs: 1.5 * kLockMs });
  await Promise.all(calls);
  killing.on = false;
  const killed = await killer;
  const drainMs = performance.now() - faultStart;
  const byOutcome: Record<string, number> = {};
  for (const { outcome } of settled) byOutcome[outcome] = (byOutcome[outcome] ?? 0) + 1;
  const longest = Math.max(...settled.map((s) => s.ms));
  console.log(`wake-ups lost: ${killed} watch connections killed, master 0 restarted after ${1.5 * kLockMs} ms; ${settled.length} calls settled in ${(drainMs / 1000).toFixed(1)} s: ${Object.entries(byOutcome).map(([k, n]) => `${k} ${n}`).join(', ')}; longest call ${(longest / 1000).toFixed(1)} s (bound ${(kBoundMs / 1000).toFixed(1)} s)`);
  if (settled.length !== kRedlocks * kPerRedlock) problems.push(`${kRedlocks * kPerRedlock - settled.length} calls never settled`);
  if (longest > kBoundMs) problems.push(`a call took ${longest.toFixed(0)} ms, past its schedule's bound of ${kBoundMs} ms`);
  if (killed === 0) problems.push('no watch connection was killed: the scenario did not lose wake-ups');
  if (overlaps > 0) problems.push(`${overlaps} overlapping holders`);
  if ((byOutcome.acquired ?? 0) === 0) problems.push('no call acquired');
  const left = await Promise.all(masters.urls.map((url) => withClient(url, (client) => client.sendCommand<number>(['EXISTS', 'hot']))));
  if (left.some((n) => n > 0)) problems.push(`the lock key is left on ${left.filter((n) => n > 0).length} master(s)`);
} finally {
  await Promise.all([...redlocks, holder].map((r) => r.quit()));
  await masters.close();
}
if (problems.length > 0) {
  console.error(`faults waiters: FAIL: ${problems.join('; ')}`);
  process.exit(1);
}
console.log('faults waiters: ok');
