import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Redlock as RedlockClass, ReentrantRedlock } from '../../src/index.js';
import { Random } from '../diff/random.js';
import { checkClaims, checkSettled, expected, type Violation } from './check.js';
import { Terms } from './elections.js';
import { scheduleFaults } from './faults.js';
import { fills, install, kEpoch, realImmediate, uninstall } from './globals.js';
import { History } from './history.js';
import { Holders } from './holders.js';
import { Host } from './host.js';
import { Network } from './network.js';
import { plantShared } from './bugs.js';
import { currentProc, Proc } from './process.js';
import { kWorkerPatches, workerFactory, type SimStart } from './renewal-worker.js';
import { kScenarios, latencyOf, type Scenario } from './scenarios.js';
import { Scheduler } from './scheduler.js';
import type { Worker } from './workloads.js';

export interface RunOptions {
  readonly seed: number;
  readonly scenario: string;
  /** Keep every network message as a line of the trace (a replay). */
  readonly verbose?: boolean;
  /** A copy of pipelock's sources to drive instead of this checkout's (a planted bug, bugs.ts). */
  readonly root?: string;
}

export interface RunResult {
  readonly seed: number;
  readonly scenario: string;
  readonly hash: string;
  readonly violations: readonly Violation[];
  /** Faults outside Redlock's assumptions: violations in such a run are expected, and reported as such. */
  readonly unsafe: readonly string[];
  /**
   * 'violation': a property broken within Redlock's assumptions (a bug); 'expected': broken only
   * where the run left them (unsafe faults) or by a holder acting straight after its pause.
   */
  readonly verdict: 'ok' | 'violation' | 'expected';
  readonly history: History;
  readonly virtualMs: number;
  /** Events the world ran (a spinning run is cut at kMaxEventsAtOnce at one instant, or kMaxEvents). */
  readonly events: number;
}

interface Pipelock {
  readonly Redlock: typeof RedlockClass;
  readonly ReentrantRedlock: typeof ReentrantRedlock;
  readonly createToken: () => string;
  /** thread.ts's body as a function, where the root was patched for renewal 'worker' (renewal-worker.ts). */
  readonly simStart: SimStart | undefined;
}

const kRoot = join(fileURLToPath(import.meta.url), '..', '..', '..');
const loaded = new Map<string, Promise<Pipelock>>();

/**
 * pipelock's modules, loaded once per process inside a world of seed 0: what they draw at load
 * (the gate's process id for its turns queue) is then the same in every process, so a seed
 * replayed in a fresh process (`--seed K`) is the run it was in a batch.
 */
async function load(root: string): Promise<Pipelock> {
  let p = loaded.get(root);
  if (p === undefined) {
    const url = (path: string): string => pathToFileURL(join(root, path)).href;
    install(new Scheduler(), new Random(0));
    const thread = join(root, 'src/lifecycle/worker/thread.ts');
    const patched = readFileSync(thread, 'utf8').includes('export function simStart(');
    p = Promise.all([
      import(url('src/index.ts')), import(url('src/protocol/token.ts')), patched ? import(url('src/lifecycle/worker/thread.ts')) : undefined,
    ]).then(([index, token, worker]) => ({
      simStart: (worker as { simStart?: SimStart } | undefined)?.simStart,
      Redlock: (index as { Redlock: typeof RedlockClass }).Redlock,
      ReentrantRedlock: (index as { ReentrantRedlock: typeof ReentrantRedlock }).ReentrantRedlock,
      createToken: (token as { createToken: () => string }).createToken,
    }));
    loaded.set(root, p);
    try {
      await p;
    } finally {
      uninstall();
    }
  }
  return p;
}

/** The settings every simulated process's Redlock gets: node-redlock's defaults but a shorter threshold. */
const kSettings = { automaticExtensionThreshold: 100, retryDelay: 100, retryJitter: 50 } as const;
const kMaxTtl = 2500;
/** A runaway run (a livelock, a timer loop) is cut here, in virtual ms, and judged as it stands. */
const kLimitMs = 120_000;

/**
 * A run that makes this many events at one virtual instant is spinning (a zero-delay loop: seed
 * 1786 of mutex once re-armed a 0 ms timer at the same instant forever, and its worker ran out of
 * memory); one that makes this many in all is creeping (steps that move time by a hair). A seed
 * makes 3,000–7,000 events in all. Either is cut and reported as a violation with its seed, never
 * left to hang a batch.
 */
const kMaxEventsAtOnce = 20_000;
const kMaxEvents = 2_000_000;

class Runaway extends Error {}

/** Counts a run's events, to tell a spinning run from a long one. */
class Meter {
  events = 0;
  #instant = -1;
  #atInstant = 0;

  count(now: number): void {
    this.events++;
    if (now === this.#instant) this.#atInstant++;
    else {
      this.#instant = now;
      this.#atInstant = 1;
    }
    if (this.#atInstant > kMaxEventsAtOnce) throw new Runaway(`${kMaxEventsAtOnce} events at virtual ${now.toFixed(3)} ms without time moving (a zero-delay loop)`);
    if (this.events > kMaxEvents) throw new Runaway(`more than ${kMaxEvents} events by virtual ${now.toFixed(3)} ms`);
  }
}

/** Runs the world's events until `done()` holds or nothing is left before `limit`. */
async function drive(world: Scheduler, meter: Meter, done: () => boolean, limit: number): Promise<void> {
  for (;;) {
    await realImmediate();
    if (done() || world.peek() > limit) return;
    world.runNext();
    meter.count(world.now);
  }
}

/** One seed of one scenario: the world built from the seed, the workloads run, the history checked. */
export async function runSeed(options: RunOptions): Promise<RunResult> {
  const scenario: Scenario | undefined = kScenarios[options.scenario];
  if (scenario === undefined) throw new Error(`no scenario ${options.scenario} (${Object.keys(kScenarios).join(', ')})`);
  // Renewal 'worker' runs on a copy of src/ that lets the simulated clients in (renewal-worker.ts).
  const root = options.root ?? (scenario.settings?.renewal === 'worker' ? plantShared({ name: 'worker-sim', what: '', patches: kWorkerPatches }) : kRoot);
  const { Redlock, ReentrantRedlock: Reentrant, createToken, simStart } = await load(root);
  const world = new Scheduler();
  const random = new Random(options.seed);
  const history = new History(world, options.verbose === true);
  const meter = new Meter();
  const holders = new Holders(history);
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => { unhandled.push(reason); };
  process.on('unhandledRejection', onUnhandled);
  install(world, random);
  const stackTraceLimit = Error.stackTraceLimit;
  // Capturing a stack for every error pipelock makes (a vote against, a lost connection) was ~5% of
  // a run; no check or trace reads one, and a verbose replay keeps them for whoever debugs it.
  if (options.verbose !== true) Error.stackTraceLimit = 0;
  try {
    // The token pool outlives a run: spend it to its end, so this seed's tokens come from this seed.
    for (const before = fills; fills === before;) createToken();
    const drift = (): number => 1 + (random.next() / 2 ** 32 - 0.5) * 0.006;
    const hosts = Array.from({ length: scenario.masters }, (_, i) => new Host(world, i, drift(), scenario.flavor));
    // Wall clocks agreeing within ±250 ms (NTP does far better), far less than a restarted master
    // stays down: a fencing counter a master re-creates from its clock after losing it must start
    // above what the others handed out (src/engine/fencing.ts). Clocks up to 1,000 s apart made
    // fences fall after restarts (mutex seed 1913), outside that assumption; rates still differ.
    for (const host of hosts) host.offset = kEpoch + random.between(-250, 250);
    const net = new Network(random, latencyOf(random), history);
    const procs = Array.from({ length: scenario.procs }, (_, i) => new Proc(world, i, drift(), random.between(1000, 1e6)));
    // Campaigners' wall clocks far apart (an election's terms start from them where counters were lost).
    if (scenario.clockSpreadMs !== undefined) for (const proc of procs) proc.dateOffset = random.between(-scenario.clockSpreadMs, scenario.clockSpreadMs);
    if (scenario.latency !== undefined) net.latency = scenario.latency;
    const terms = new Terms(hosts);
    const spawned: Proc[] = [];
    if (simStart !== undefined) (globalThis as { pipelockSimWorker?: unknown }).pipelockSimWorker = workerFactory(simStart, net, hosts, currentProc, history, spawned);
    const settings = { ...kSettings, ...scenario.settings };
    const redlocks: RedlockClass[] = [];
    // Built with the Redlock, from the same copy of pipelock (a planted bug's root: its Redlock class).
    const reentrants: ReentrantRedlock[] = [];
    for (const proc of procs) {
      proc.run(() => {
        const clients = hosts.map((host) => net.client(proc, host, 2, false));
        for (const client of clients) client.connectNow();
        const redlock = new Redlock(clients, settings);
        redlock.on('error', (error: Error) => { history.net(proc.id, -1, 'error', error); });
        redlocks.push(redlock);
        reentrants.push(new Reentrant(redlock));
      });
    }
    const phaseEnd = scenario.phaseMs;
    scheduleFaults(random, scenario.faults(random), phaseEnd, kMaxTtl, procs, hosts, net, history);
    // The faulty phase, then a quiet one on fresh resources whose keys must all be gone at its end.
    let running = 0;
    const phase = (names: readonly string[], until: number, mayAbandon: boolean): void => {
      procs.forEach((proc, i) => {
        for (let k = 0; k < scenario.workers; k++) {
          const w: Worker = { proc, redlock: redlocks[i]!, random, history, holders, resources: names, mayAbandon, terms, reentrant: reentrants[i]! };
          running++;
          proc.run(() => {
            void scenario.workload(w, until).finally(() => { running--; });
          });
        }
      });
    };
    const violations: Violation[] = [];
    let runaway: string | undefined;
    try {
      const resources = Array.from({ length: scenario.resources }, (_, i) => `r${i}`);
      phase(resources, phaseEnd, true);
      await drive(world, meter, () => running === 0, kLimitMs);
      const quietFrom = Math.max(world.now, phaseEnd + kMaxTtl + 200);
      world.at(quietFrom, () => undefined);
      await drive(world, meter, () => world.now >= quietFrom, kLimitMs);
      // Quiet: no fault, and every message within a node timeout, so every master answers every call.
      history.log('run', 'quiet phase');
      net.latency = { minMs: 0.1, maxMs: 5, lateChance: 0, lateMaxMs: 0 };
      const finals = resources.map((r) => `final:${r}`);
      phase(finals, world.now + 1500, false);
      await drive(world, meter, () => running === 0, kLimitMs);
      const leftAt = world.now + 1000;
      world.at(leftAt, () => undefined);
      await drive(world, meter, () => world.now >= leftAt, kLimitMs);
      violations.push(...checkClaims(history), ...checkSettled(history));
      for (const text of holders.expired) violations.push({ property: 'expired', resource: undefined, text });
      for (const text of holders.lost) violations.push({ property: 'lost', resource: undefined, text });
      violations.push(...holders.violations, ...terms.violations);
      for (const host of hosts) {
        for (const key of host.master.dump()) {
          if (key.key.startsWith('final:') && typeof key.value === 'string' && !/^\d+$/.test(key.value)) {
            violations.push({ property: 'leftover', resource: key.key, text: `${host.name} still holds ${key.key} = ${key.value.slice(0, 8)}… after the quiet phase` });
          }
        }
      }
      let quitting = procs.length;
      procs.forEach((proc, i) => {
        proc.run(() => { void redlocks[i]!.quit().finally(() => { quitting--; }); });
      });
      await drive(world, meter, () => quitting === 0, kLimitMs);
      const quitAt = world.now + 1000;
      world.at(quitAt, () => undefined);
      await drive(world, meter, () => world.now >= quitAt, kLimitMs);
      for (const proc of [...procs, ...spawned]) {
        if (proc.timers.size > 0) violations.push({ property: 'timers', resource: undefined, text: `p${proc.id} has ${proc.timers.size} timer(s) left after quit()` });
        for (const error of proc.thrown) violations.push({ property: 'thrown', resource: undefined, text: `p${proc.id}: a callback threw ${String(error)}` });
      }
    } catch (error) {
      if (!(error instanceof Runaway)) throw error;
      // Cut where it spun: what the history holds so far is still judged.
      runaway = error.message;
      violations.push({ property: 'runaway', resource: undefined, text: `the run was cut: ${error.message}`, at: world.now }, ...checkClaims(history));
    }
    await realImmediate();
    for (const reason of unhandled) violations.push({ property: 'unhandled', resource: undefined, text: `unhandled rejection: ${String(reason)}` });
    const unsafe = history.unsafeFaults;
    // A spinning run is a bug whatever the faults: a lock client must not livelock.
    const verdict = violations.length === 0 ? 'ok' : runaway === undefined && (unsafe.length > 0 || violations.every(expected)) ? 'expected' : 'violation';
    return { seed: options.seed, scenario: scenario.name, hash: history.digest(), violations, unsafe, verdict, history, virtualMs: world.now, events: meter.events };
  } finally {
    delete (globalThis as { pipelockSimWorker?: unknown }).pipelockSimWorker;
    Error.stackTraceLimit = stackTraceLimit;
    uninstall();
    process.off('unhandledRejection', onUnhandled);
  }
}
