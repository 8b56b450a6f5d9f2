import type { Lock, Redlock, ReentrantRedlock } from '../../src/index.js';
import type { Random } from '../diff/random.js';
import type { History } from './history.js';
import type { Holders } from './holders.js';
import type { Proc } from './process.js';
import type { Terms } from './elections.js';

/** One simulated process's part of a scenario: its Redlock, its clock, the run's shared pieces. */
export interface Worker {
  readonly proc: Proc;
  readonly redlock: Redlock;
  readonly random: Random;
  readonly history: History;
  readonly holders: Holders;
  /** The resources this phase contends on. */
  readonly resources: readonly string[];
  /** Whether a holder may walk away without releasing (a crashed holder; not in the quiet phase). */
  readonly mayAbandon: boolean;
  /** The run's ledger of election terms (elections.ts). */
  readonly terms?: Terms;
  /** A ReentrantRedlock over `redlock` (reentrant.ts). */
  readonly reentrant?: ReentrantRedlock;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A synchronous stretch of work: none of the process's callbacks runs for `ms` of world time. */
function stall(w: Worker, ms: number): void {
  w.proc.pause(ms);
  w.history.log(w.proc.id, `stalls ${ms} ms`);
}

export function outcome(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message.slice(0, 80)}` : String(error);
}

const kDurations = [150, 300, 1000, 2500];

/** Holds `lock` for a while, acting at each step while its validity lasts; extends it now and then. */
async function hold(w: Worker, lock: Lock, resource: string, duration: number, claimKind: 'x' | 'w' | 'r' | 'p', permits = 1): Promise<Lock> {
  const { proc, random, holders } = w;
  const claim = holders.take(proc, lock, resource, claimKind, permits, duration);
  const steps = random.between(0, 4);
  for (let i = 0; i < steps; i++) {
    // An auto-extended lock is kept by its renewals: its holder may work past its first validity.
    await sleep(random.between(1, Math.max(2, Math.round((lock.signal === undefined ? lock.validity : 1000) / 2))));
    if (!holders.see(proc, claim, lock)) break;
    // Plain and auto-extended locks alike: an auto-extended one is extended in place, and its
    // renewals must follow the new duration (a shorter one must not run out before them).
    if (claimKind === 'x' && random.chance(0.25)) {
      const op = w.history.op(proc.id, `extend ${resource}`);
      try {
        lock = await w.redlock.extend(lock, random.pick(kDurations));
        w.history.settle(op, `ok ${lock.validity.toFixed(1)}`);
        holders.see(proc, claim, lock);
      } catch (error) {
        w.history.settle(op, outcome(error));
        break;
      }
    }
  }
  holders.kept(proc, claim, lock, !w.mayAbandon);
  holders.drop(proc, claim, lock);
  return lock;
}

/** Releases unless this holder walks away (its keys left to expire). */
export async function letGo(w: Worker, lock: Lock, resource: string): Promise<void> {
  if (w.mayAbandon && w.random.chance(0.1)) {
    w.history.log(w.proc.id, `abandons ${resource}`);
    return;
  }
  const op = w.history.op(w.proc.id, `release ${resource}`);
  const releasing = w.redlock.release(lock);
  // Work done synchronously right after letting go (the release not awaited yet) stalls the event
  // loop: whatever the release set in motion in this process (a waiter handed the lock) waits.
  // Either between callbacks (its timers wait; promise continuations already queued still run), or
  // before anything queued runs: the clock moves under running code, as a blocked loop sees it.
  const stalls = w.random.weighted([[8, 'none'], [1, 'callbacks'], [1, 'sync']] as const);
  if (stalls === 'callbacks') stall(w, w.random.between(1, 800));
  if (stalls === 'sync') {
    const ms = w.random.between(1, 800);
    w.history.log(w.proc.id, `blocks its event loop ${ms} ms`);
    w.proc.world.stallWorld(ms);
  }
  try {
    const result = await releasing;
    w.history.settle(op, `released on ${result.released}`);
  } catch (error) {
    w.history.settle(op, outcome(error));
  }
}

/** Contended mutexes: acquire (plain, waiting, auto-extended, fenced) → hold → release; using(). */
export async function mutexes(w: Worker, until: number): Promise<void> {
  const { proc, random, redlock, history } = w;
  while (proc.world.now < until) {
    const resource = random.pick(w.resources);
    const duration = random.pick(kDurations);
    const shape = random.weighted([[4, 'acquire'], [2, 'auto'], [2, 'fenced'], [2, 'using']] as const);
    if (shape === 'using') {
      const op = history.op(proc.id, `using ${resource} ${Math.max(duration, 300)}`);
      const holder = w.holders.label();
      try {
        await redlock.using([resource], Math.max(duration, 300), { retryCount: random.between(0, 20) }, async (signal) => {
          let checked = proc.world.now;
          for (let i = random.between(1, 4); i > 0 && !signal.aborted; i--) {
            w.holders.instant(proc, holder, resource, proc.pausedWithin(checked, proc.world.now));
            checked = proc.world.now;
            await sleep(random.between(1, 400));
          }
        });
        history.settle(op, 'ok');
      } catch (error) {
        history.settle(op, outcome(error));
      }
    } else {
      const settings = { retryCount: random.between(0, 20), autoExtend: shape === 'auto', fencing: shape === 'fenced' };
      const op = history.op(proc.id, `acquire ${resource} ${duration} ${shape}`);
      let lock: Lock | undefined;
      try {
        lock = await redlock.acquire([resource], duration, settings);
        history.settle(op, `ok ${lock.validity.toFixed(1)}`);
      } catch (error) {
        history.settle(op, outcome(error));
      }
      if (lock !== undefined) await letGo(w, await hold(w, lock, resource, duration, 'x'), resource);
    }
    await sleep(random.between(0, 200));
  }
}

const kPermits = 2;

/**
 * Semaphores and read/write locks: each resource is one kind's (even: a semaphore of 2 permits;
 * odd: a read/write lock, 3 reads in 4), acquired plain or auto-extended, held, released.
 */
export async function kinds(w: Worker, until: number): Promise<void> {
  const { proc, random, redlock, history } = w;
  while (proc.world.now < until) {
    const index = random.int(w.resources.length);
    const resource = w.resources[index]!;
    const duration = random.pick(kDurations);
    const settings = { retryCount: random.between(0, 20), autoExtend: random.chance(0.3) };
    const kind = index % 2 === 0 ? 'p' : random.chance(0.75) ? 'r' : 'w';
    const op = history.op(proc.id, `${kind === 'p' ? 'permit' : kind === 'r' ? 'read' : 'write'} ${resource} ${duration}`);
    let lock: Lock | undefined;
    try {
      lock = kind === 'p'
        ? await redlock.semaphore(resource, kPermits).acquire(duration, settings)
        : kind === 'r' ? await redlock.readWriteLock(resource).readLock(duration, settings) : await redlock.readWriteLock(resource).writeLock(duration, settings);
      history.settle(op, `ok ${lock.validity.toFixed(1)}`);
    } catch (error) {
      history.settle(op, outcome(error));
    }
    if (lock !== undefined) await letGo(w, await hold(w, lock, resource, duration, kind, kPermits), resource);
    await sleep(random.between(0, 200));
  }
}
