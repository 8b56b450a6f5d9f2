/**
 * The named faults. Each `inject` starts while the contenders are running and resolves once the
 * fault has ended (every master back up, resumed and reachable), so the runner can time recovery.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { LocalMasters } from '../../src/testing/masters.js';
import type { Ledger, LedgerRow } from './safety/ledger.js';
import { withClient } from '../../tools/src/shared/admin.js';
import type { FaultProxy } from '../../test/helpers/proxy.js';
import type { ClockControl } from './clock.js';

export interface FaultContext {
  readonly masters: LocalMasters;
  /** Proxies in front of masters 3 and 4 (only in scenarios that ask for them). */
  readonly proxies: readonly FaultProxy[];
  readonly ledger: Ledger;
  /** Present in scenarios that ask for `clocked` masters. */
  readonly clock: ClockControl | undefined;
  /** The contenders' lock duration, ms: the largest TTL in the run. */
  readonly lockMs: number;
  /** The contenders' per-attempt budget for the masters' answers, ms. */
  readonly nodeTimeoutMs: number;
  /** 1 for the full suite; CI's short form scales every fault's length down. */
  readonly scale: number;
  /** A server outside the Redlock (in scenarios that ask for one): the primary that failed-over masters replicate. */
  readonly spare: string | undefined;
  /** Starts a phase of the fault: the commands the masters ran and the acquisitions made are counted per phase. */
  readonly mark: (label: string) => Promise<void>;
}

export interface Scenario {
  readonly name: string;
  /** What is done, for the table. */
  readonly fault: string;
  /** safe: 0 violations expected; unsafe: the Redlock page (or its critics) says Redlock may fail here, and the run shows what happens. */
  readonly expect: 'safe' | 'unsafe';
  /** Connect the contenders to masters 3 and 4 through fault proxies. */
  readonly proxied?: boolean;
  /** Start the masters so that their clocks can be moved. */
  readonly clocked?: boolean;
  /**
   * Time held inside the section, ms, when not the suite's default. The unsafe cases need holders
   * that stay long enough for several faults to hit one of them, as in the Redlock page's crash-recovery scenario.
   */
  readonly holdMs?: number;
  /**
   * What each contender's section is: a fenced mutex section (default), a reentrant nest
   * (safety/reentrant-section.ts) or a leadership of an election (safety/election-section.ts).
   */
  readonly section?: 'mutex' | 'reentrant' | 'election' | 'renewed';
  /** Contention after the fault ends, ms, when not the suite's (unscaled): sections longer than the suite's window need more to recover in. */
  readonly afterMs?: number;
  /** Section 'renewed': the holders' Redlock renews on a worker thread with this heartbeatBound, ms. */
  readonly heartbeatBound?: number;
  /** What else the scenario must meet, read from the ledger's rows and the failed cycles by error code. */
  readonly problems?: (rows: readonly LedgerRow[], failures: Readonly<Record<string, number>>) => string[];
  /** Worker threads, contenders per worker and resources, when not the suite's. */
  readonly load?: { readonly workers: number; readonly contenders: number; readonly resources: number };
  /** Start a spare server (FaultContext.spare). */
  readonly spare?: boolean;
  /**
   * Each marked phase may cost the masters at most this many times the commands per acquisition of
   * the fault-free run before it (commands per second where a phase makes no acquisition): a retry
   * storm fails the scenario.
   */
  readonly maxCommandsFactor?: number;
  readonly inject: (context: FaultContext) => Promise<void>;
}

/** The worker-renewal scenario's heartbeatBound, ms: a stall of 2× the lock duration stays under it, one of kPastBoundMs does not. */
const kBoundMs = 3_000;
const kPastBoundMs = 5_000;

/**
 * Worker renewal (issue 44): every holder stalled under the bound kept its lock (not lost, its
 * commit accepted); every holder stalled past bound + duration lost it with the blocked-loop error
 * and got no write accepted after its stall.
 */
function renewedProblems(rows: readonly LedgerRow[], failures: Readonly<Record<string, number>>): string[] {
  const problems: string[] = [];
  const under = rows.filter((row) => row.stalledMs > 0 && row.stalledMs < kBoundMs);
  const past = rows.filter((row) => row.stalledMs >= kPastBoundMs);
  if (under.length === 0 || past.length === 0) problems.push(`stalls taken: ${under.length} under the bound, ${past.length} past it (1 of each expected)`);
  for (const row of under) if (row.lost === 1 || row.commit !== 1) problems.push(`a holder stalled ${row.stalledMs} ms (under heartbeatBound ${kBoundMs} ms) lost its lock (commit ${row.commit})`);
  for (const row of past) if (row.lost !== 1) problems.push(`a holder stalled ${row.stalledMs} ms (past heartbeatBound + duration) was not told its lock was lost`);
  if (past.length > 0 && (failures.ERR_PIPELOCK_LOOP_BLOCKED ?? 0) < past.length) problems.push(`${failures.ERR_PIPELOCK_LOOP_BLOCKED ?? 0} cycle(s) failed with ERR_PIPELOCK_LOOP_BLOCKED, ${past.length} expected`);
  return problems;
}

function rounds(scale: number, full: number): number {
  return Math.max(2, Math.round(full * scale));
}

/** Master 0 SIGKILLed and restarted after 1.5× the lock duration, then master 3 SIGSTOPped for 2× it. */
async function killThenPause(masters: LocalMasters, lockMs: number): Promise<void> {
  await masters.masters[0]!.restart({ delayMs: 1.5 * lockMs });
  await delay(300);
  const paused = masters.masters[3]!;
  paused.pause();
  await delay(2 * lockMs);
  paused.resume();
  await delay(300);
}

async function everyMaster(masters: LocalMasters, command: string[]): Promise<void> {
  await Promise.all(masters.urls.map((url) => withClient(url, (client) => client.sendCommand(command))));
}

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'no-fault',
    fault: 'control run: contenders only',
    expect: 'safe',
    inject: async ({ scale }) => {
      await delay(3_000 * scale);
    },
  },
  {
    name: 'kill-delayed-restart',
    fault: 'a master SIGKILLed, restarted empty after 1.5× the lock duration (Redlock\'s delayed restart); twice',
    expect: 'safe',
    inject: async ({ masters, lockMs }) => {
      for (const index of [0, 2]) {
        await masters.masters[index]!.restart({ delayMs: 1.5 * lockMs });
        await delay(300);
      }
    },
  },
  {
    name: 'kill-restart-at-once',
    fault: 'a master SIGKILLed and restarted empty at once (no persistence), round robin every 100 ms; holds of 300 ms',
    expect: 'unsafe',
    holdMs: 300,
    inject: async ({ masters, scale }) => {
      const count = rounds(scale, 15);
      for (let round = 0; round < count; round++) {
        await masters.masters[round % masters.masters.length]!.restart({ delayMs: 0 });
        await delay(100);
      }
    },
  },
  {
    name: 'pause-past-ttl',
    fault: 'a master SIGSTOPped for 2× the lock duration, then resumed; twice',
    expect: 'safe',
    inject: async ({ masters, lockMs }) => {
      for (const index of [1, 3]) {
        const master = masters.masters[index]!;
        master.pause();
        await delay(2 * lockMs);
        master.resume();
        await delay(300);
      }
    },
  },
  {
    name: 'latency-2-masters',
    fault: '+100 ms each way to 2 masters, then +2× nodeTimeout (their votes time out)',
    expect: 'safe',
    proxied: true,
    inject: async ({ proxies, nodeTimeoutMs, scale }) => {
      for (const ms of [100, 2 * nodeTimeoutMs]) {
        for (const proxy of proxies) proxy.delayMs = ms;
        await delay(1_500 * scale);
      }
      for (const proxy of proxies) proxy.delayMs = 0;
    },
  },
  {
    name: 'drop-2-masters',
    fault: 'every connection to 2 masters cut every 100 ms',
    expect: 'safe',
    proxied: true,
    inject: async ({ proxies, scale }) => {
      const until = performance.now() + 3_000 * scale;
      while (performance.now() < until) {
        for (const proxy of proxies) proxy.drop();
        await delay(100);
      }
    },
  },
  {
    name: 'script-flush-client-kill',
    fault: 'SCRIPT FLUSH on every master and CLIENT KILL TYPE normal on 2 of them, every 300 ms',
    expect: 'safe',
    inject: async ({ masters, scale }) => {
      const count = rounds(scale, 10);
      const n = masters.urls.length;
      for (let round = 0; round < count; round++) {
        await everyMaster(masters, ['SCRIPT', 'FLUSH']);
        await Promise.all([round % n, (round + 2) % n].map((i) => withClient(masters.urls[i]!, (client) => client.sendCommand(['CLIENT', 'KILL', 'TYPE', 'normal']))));
        await delay(300);
      }
    },
  },
  {
    name: 'failover-replicas',
    fault: '2 masters turned replicas of a server outside the Redlock (READONLY), then 3 (no quorum), then masters again; twice',
    expect: 'safe',
    spare: true,
    maxCommandsFactor: 1.5,
    inject: async ({ masters, spare, scale, mark }) => {
      const [host, port] = new URL(spare!).host.split(':') as [string, string];
      const replicaof = (indexes: readonly number[], args: readonly string[]) =>
        Promise.all(indexes.map((i) => withClient(masters.urls[i]!, (client) => client.sendCommand(['REPLICAOF', ...args]))));
      for (let round = 0; round < 2; round++) {
        await mark(`round ${round + 1}: 2 replicas`);
        await replicaof([1, 3], [host, port]);
        await delay(1_500 * scale);
        await mark(`round ${round + 1}: 3 replicas`);
        await replicaof([4], [host, port]);
        await delay(1_000 * scale);
        await mark(`round ${round + 1}: masters again`);
        await replicaof([1, 3, 4], ['NO', 'ONE']);
        await delay(500 * scale);
      }
    },
  },
  {
    name: 'holder-paused',
    fault: 'a holder\'s thread blocked inside its section for 2× the lock duration (a GC pause), 3 times',
    expect: 'safe',
    inject: async ({ ledger, lockMs }) => {
      for (let round = 0; round < 3; round++) {
        ledger.requestStall(2 * lockMs);
        while (ledger.stallPending) await delay(5);
        await delay(2 * lockMs + 300);
      }
    },
  },
  {
    name: 'worker-renewal',
    fault: `renewal 'worker', sections of 1.2× the lock duration kept by renewals: a master SIGKILLed and restarted after 1.5× the duration, another SIGSTOPped for 2× it, a holder's loop blocked for 2× it (under heartbeatBound ${kBoundMs} ms: kept), then one blocked ${kPastBoundMs} ms (past it: let go, told)`,
    expect: 'safe',
    section: 'renewed',
    holdMs: 1_200,
    afterMs: 4_000,
    load: { workers: 2, contenders: 4, resources: 4 },
    heartbeatBound: kBoundMs,
    problems: renewedProblems,
    inject: async ({ masters, ledger, lockMs }) => {
      await killThenPause(masters, lockMs);
      for (const ms of [2 * lockMs, kPastBoundMs]) {
        ledger.requestStall(ms);
        while (ledger.stallPending) await delay(5);
        await delay(ms + lockMs + 300);
      }
    },
  },
  {
    name: 'clock-jump',
    fault: 'a master\'s wall clock jumps forward by the lock duration, round robin every 100 ms; holds of 300 ms',
    expect: 'unsafe',
    clocked: true,
    holdMs: 300,
    inject: async ({ clock, masters, lockMs, scale }) => {
      const count = rounds(scale, 15);
      for (let round = 0; round < count; round++) {
        await clock!.jump(round % masters.masters.length, lockMs);
        await delay(100);
      }
    },
  },
  {
    name: 'reentrant-kill-pause',
    fault: 'reentrant sections nested 3 deep (two forked children inside): a master SIGKILLed and restarted after 1.5× the lock duration, then another SIGSTOPped for 2× it',
    expect: 'safe',
    section: 'reentrant',
    inject: async ({ masters, lockMs }) => {
      await killThenPause(masters, lockMs);
    },
  },
  {
    name: 'election-kill-pause',
    fault: 'three campaigners (one per thread) on one election, leading 100 ms or 1.5× the lease, then resigning: a master SIGKILLed and restarted after 1.5× the lease, another SIGSTOPped for 2× it, a leader\'s thread blocked for 2× it (a GC pause); then the same on two other masters (not in the short form)',
    expect: 'safe',
    section: 'election',
    holdMs: 100,
    load: { workers: 3, contenders: 1, resources: 1 },
    inject: async ({ masters, ledger, lockMs, scale }) => {
      // CI's short form makes one round: its faults are set by the lease, so they cannot be scaled.
      const faulted: readonly (readonly [number, number])[] = scale < 1 ? [[0, 2]] : [[0, 2], [4, 1]];
      for (const [killed, paused] of faulted) {
        await masters.masters[killed]!.restart({ delayMs: 1.5 * lockMs });
        await delay(300);
        const master = masters.masters[paused]!;
        master.pause();
        await delay(2 * lockMs);
        master.resume();
        await delay(300);
        ledger.requestStall(2 * lockMs);
        while (ledger.stallPending) await delay(5);
        await delay(2 * lockMs + 300);
      }
    },
  },
];
