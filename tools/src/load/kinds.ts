/** The lock a load cycle takes, by `--kind`: through pipelock's public API, as a user would. */
import type { CallSettings, Lock, Redlock } from 'pipelock';
import type { Acquire, Cycle, Using } from './cycle.js';
import { cycleFor } from './cycles.js';
import type { Kind, LoadOptions, Operation } from './options.js';
import { reentrantCycle } from './reentrant-cycle.js';

/**
 * The cycle of `--kind`: mutex, semaphore and rw run `operation` over the kind's acquire/using
 * (lockerFor, below); reentrant has its own cycle, an outermost acquisition and depth − 1 nested.
 */
export function cycleForKind(kind: Kind, operation: Operation, depth: number): Cycle {
  if (kind === 'reentrant') return (context, resources, start, out) => reentrantCycle(context, resources, depth, start, out);
  return cycleFor(operation);
}

/** Of the rw kind's acquisitions, one in this many is a write lock. */
export const kWriteEvery = 4;

/** acquire() and using() of the run's kind, for one worker's Redlock. */
export function lockerFor(redlock: Redlock, kind: LoadOptions['kind'], permits: number): { acquire: Acquire; using: Using } {
  switch (kind) {
    case 'election': // measured by src/load/failover.ts, not by cycles
    case 'mutex':
    case 'reentrant': // its cycle (reentrantCycle) takes its locks through ReentrantRedlock itself
      return {
        acquire: (resources, duration, settings) => redlock.acquire(resources, duration, settings),
        using: (resources, duration, settings, routine) => redlock.using(resources, duration, settings, routine),
      };
    case 'semaphore':
      return {
        acquire: (resources, duration, settings) => redlock.semaphore(resources[0]!, permits).acquire(duration, settings),
        using: (resources, duration, settings, routine) => redlock.semaphore(resources[0]!, permits).using(duration, settings, routine),
      };
    case 'rw': {
      let cycles = 0;
      const write = (): boolean => ++cycles % kWriteEvery === 0;
      const take = (resource: string, duration: number, settings: CallSettings): Promise<Lock> => {
        const lock = redlock.readWriteLock(resource);
        return write() ? lock.writeLock(duration, settings) : lock.readLock(duration, settings);
      };
      return {
        acquire: (resources, duration, settings) => take(resources[0]!, duration, settings),
        using: (resources, duration, settings, routine) => {
          const lock = redlock.readWriteLock(resources[0]!);
          return write() ? lock.usingWrite(duration, settings, routine) : lock.usingRead(duration, settings, routine);
        },
      };
    }
  }
}
