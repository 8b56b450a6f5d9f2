/**
 * The fault suite's lock-kinds scenario (`npm run faults` and `faults:ci` run it after the others):
 * contenders in three Redlocks (as three processes would be) fight over two semaphores of 3 permits
 * and two read/write locks (one writer in four) on five masters while masters are killed, paused
 * and restarted. Every holding is written to an interval log — the instant after acquire() resolved
 * and the instant before release() is sent, cut at the lock's validity end — and an independent
 * checker (./check.ts) sweeps it: never more than 3 permit holders at once, never a writer beside
 * anyone. In the faults where the Redlock page calls Redlock safe (a restart delayed past the TTL, a
 * paused master) a violation fails the run; the restart-at-once fault, which it calls unsafe, is
 * reported only.
 *
 *   node --conditions=pipelock-source --import tsx bench/faults/kinds/run.ts [--short] [--only NAME,…]
 * Exits 1 on a problem.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { PipelockError, Redlock, type Lock } from '../../../src/index.js';
import { startMasters, type LocalMasters } from '../../../src/testing/masters.js';
import { withClient } from '../../../tools/src/shared/admin.js';
import { overlaps, type Interval } from './check.js';

const { values } = parseArgs({ options: { short: { type: 'boolean', default: false }, only: { type: 'string' } } });
const scale = values.short ? 0.5 : 1;
const kPermits = 3;
const kLockMs = 1_000;
const kHoldMs = 3;
const kRedlocks = 3;
const kLoopsPerRedlock = 8;
const kSettings = { retryCount: 2, retryDelay: 30, retryJitter: 20 };

interface KindScenario {
  readonly name: string;
  readonly fault: string;
  readonly expect: 'safe' | 'unsafe';
  readonly holdMs?: number;
  readonly inject: (masters: LocalMasters) => Promise<void>;
}

const SCENARIOS: readonly KindScenario[] = [
  { name: 'no-fault', fault: 'contenders only', expect: 'safe', inject: () => delay(3_000 * scale) },
  {
    name: 'kill-delayed-restart',
    fault: 'a master SIGKILLed, restarted empty after 1.5× the lock duration; twice',
    expect: 'safe',
    inject: async (masters) => {
      for (const index of [0, 2]) {
        await masters.masters[index]!.restart({ delayMs: 1.5 * kLockMs });
        await delay(300);
      }
    },
  },
  {
    name: 'pause-past-ttl',
    fault: 'a master SIGSTOPped for 2× the lock duration, then resumed; twice',
    expect: 'safe',
    inject: async (masters) => {
      for (const index of [1, 3]) {
        const master = masters.masters[index]!;
        master.pause();
        await delay(2 * kLockMs);
        master.resume();
        await delay(300);
      }
    },
  },
  {
    name: 'kill-restart-at-once',
    fault: 'a master SIGKILLed and restarted empty at once, round robin every 100 ms; holds of 300 ms (unsafe per the Redlock page)',
    expect: 'unsafe',
    holdMs: 300,
    inject: async (masters) => {
      const count = Math.max(2, Math.round(15 * scale));
      for (let round = 0; round < count; round++) {
        await masters.masters[round % masters.masters.length]!.restart({ delayMs: 0 });
        await delay(100);
      }
    },
  },
];

interface Tally {
  acquired: number;
  afterFault: number;
  failures: Record<string, number>;
}

/** One contender: acquire, hold, release, until `stop`; every holding goes into `log`. */
async function contend(acquire: () => Promise<Lock>, resource: string, exclusive: boolean, holdMs: number, log: Interval[], tally: Tally, faultEnd: { at: number }, stop: AbortSignal): Promise<void> {
  while (!stop.aborted) {
    let lock: Lock;
    try {
      lock = await acquire();
    } catch (error) {
      const code = error instanceof PipelockError ? error.code : 'other';
      tally.failures[code] = (tally.failures[code] ?? 0) + 1;
      await delay(5);
      continue;
    }
    const enter = performance.now();
    tally.acquired++;
    if (enter > faultEnd.at) tally.afterFault++;
    await delay(holdMs);
    // The holder may act only within validity: past it, what it does is its own fault (a GC pause), not the lock's.
    log.push({ resource, exclusive, enter, exit: Math.min(performance.now(), lock.validUntil) });
    await lock.release().catch((error: unknown) => {
      const code = `release ${error instanceof PipelockError ? error.code : 'other'}`;
      tally.failures[code] = (tally.failures[code] ?? 0) + 1;
    });
  }
}

async function keysOf(urls: readonly string[], prefix: string): Promise<{ left: number; withoutTtl: number; names: string[] }> {
  const counts = await Promise.all(urls.map((url) => withClient(url, async (client) => {
    const keys = await client.sendCommand<string[]>(['KEYS', `${prefix}*`]);
    let withoutTtl = 0;
    for (const key of keys) if (Number(await client.sendCommand(['PTTL', key])) === -1) withoutTtl++;
    // A semaphore's release counter stays (with its TTL) for its waiters, a refused writer's marker
    // for a few retry intervals: neither holds anything.
    const held = keys.filter((key) => !key.endsWith(':permits-released') && !key.endsWith(':writer-waiting'));
    const names = await Promise.all(held.map(async (key) => `${key} ${Number(await client.sendCommand(['PTTL', key]))} ms on ${url}`));
    return { left: held.length, withoutTtl, names };
  })));
  return counts.reduce((a, b) => ({ left: a.left + b.left, withoutTtl: a.withoutTtl + b.withoutTtl, names: [...a.names, ...b.names] }));
}

async function runScenario(scenario: KindScenario): Promise<string[]> {
  const masters = await startMasters({ count: 5 });
  const redlocks = Array.from({ length: kRedlocks }, () => new Redlock(masters.urls, kSettings));
  const prefix = `kinds:${randomBytes(4).toString('hex')}:`;
  const semLog: Interval[] = [];
  const rwLog: Interval[] = [];
  const sem: Tally = { acquired: 0, afterFault: 0, failures: {} };
  const rw: Tally = { acquired: 0, afterFault: 0, failures: {} };
  const faultEnd = { at: Infinity };
  const stop = new AbortController();
  const holdMs = scenario.holdMs ?? kHoldMs;
  const problems: string[] = [];
  try {
    await Promise.all(redlocks.map((redlock) => redlock.ready()));
    const loops = redlocks.flatMap((redlock, r) => Array.from({ length: kLoopsPerRedlock }, (_, i) => {
      const n = r * kLoopsPerRedlock + i;
      const resource = `${prefix}${n % 2}`;
      if (n % 2 === 0) {
        const semaphore = redlock.semaphore(`${resource}:sem`, kPermits);
        return contend(() => semaphore.acquire(kLockMs), resource, false, holdMs, semLog, sem, faultEnd, stop.signal);
      }
      const lock = redlock.readWriteLock(`${resource}:rw`);
      const writer = n % 8 === 1;
      return contend(() => writer ? lock.writeLock(kLockMs) : lock.readLock(kLockMs), resource, writer, holdMs, rwLog, rw, faultEnd, stop.signal);
    }));
    await delay(1_500 * scale);
    await scenario.inject(masters);
    faultEnd.at = performance.now();
    await delay(2_500 * scale);
    stop.abort();
    await Promise.all(loops);
    await delay(200);
    const semaphore = overlaps(semLog, kPermits);
    const readWrite = overlaps(rwLog, Infinity);
    const writes = rwLog.filter((interval) => interval.exclusive).length;
    const keys = await keysOf(masters.urls, prefix);
    console.log(`  semaphore (${kPermits} permits): ${sem.acquired} holdings, at most ${semaphore.most} at once, ${semaphore.violations} violations; failures ${JSON.stringify(sem.failures)}`);
    console.log(`  read/write: ${rw.acquired} holdings (${writes} writes), at most ${readWrite.most} readers at once, ${readWrite.violations} violations; failures ${JSON.stringify(rw.failures)}`);
    console.log(`  keys left ${keys.left}${keys.left > 0 ? ` (${keys.names.slice(0, 5).join(', ')})` : ''}, without TTL ${keys.withoutTtl}`);
    if (scenario.expect === 'safe') {
      if (semaphore.violations > 0) problems.push(`${semaphore.violations} semaphore violation(s)`);
      if (readWrite.violations > 0) problems.push(`${readWrite.violations} read/write violation(s)`);
    }
    if (sem.afterFault === 0) problems.push('no permit acquired after the fault');
    if (rw.afterFault === 0) problems.push('no read/write lock acquired after the fault');
    if (writes === 0) problems.push('no write lock acquired at all');
    if (semaphore.most < 2) problems.push('never two permit holders at once: the contention did not test the count');
    if (keys.withoutTtl > 0) problems.push(`${keys.withoutTtl} key(s) without TTL`);
    if (scenario.expect === 'safe' && keys.left > 0) problems.push(`${keys.left} key(s) left after every release`);
  } finally {
    stop.abort();
    await Promise.all(redlocks.map((redlock) => redlock.quit()));
    await masters.close();
  }
  return problems;
}

let failed = 0;
for (const scenario of SCENARIOS.filter((s) => values.only === undefined || values.only.split(',').includes(s.name))) {
  console.log(` kinds/${scenario.name} (${scenario.expect}): ${scenario.fault}`);
  const problems = await runScenario(scenario);
  console.log(problems.length === 0 ? '  ok' : `  FAIL: ${problems.join('; ')}`);
  if (problems.length > 0) failed++;
}
process.exitCode = failed === 0 ? 0 : 1;
