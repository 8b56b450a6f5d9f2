import { setTimeout as delay } from 'node:timers/promises';
import { LockLostError, type Election, type Redlock, type Term } from '../../../src/index.js';
import type { CycleContext, CustomCycleFactory, Timings } from '../../../tools/src/load/cycle.js';
import { enterSection, openSafety, type Safety } from './critical-section.js';

/** How often a leader looks at its term while it holds: the ledger's validity end follows its renewals. */
const kLookMs = 50;
/** Every third leadership outlasts its lease (1.5 ×), so the renewal of a leader runs into the faults too. */
const kLongEvery = 3;

// The worker's Redlock reaches the cycle, not the factory: one Election per Redlock and name.
const elections = new WeakMap<Redlock, Map<string, Election>>();

function electionOf(redlock: Redlock, name: string, lease: number): Election {
  let byName = elections.get(redlock);
  if (byName === undefined) elections.set(redlock, (byName = new Map<string, Election>()));
  let election = byName.get(name);
  if (election === undefined) byName.set(name, (election = redlock.election(name, { lease })));
  return election;
}

/** The load worker's entry: every cycle of the run is one leadership (see below). */
const factory: CustomCycleFactory = async (data, { index, prefix }) => {
  const safety = await openSafety(data, index, prefix);
  const { log } = safety;
  let leaderships = 0;
  return {
    cycle: (context, resources, start, out) => leadership(safety, context, resources, start, out, ++leaderships % kLongEvery === 0),
    close: () => {
      log.close();
    },
  };
};
export default factory;

/**
 * One leadership: campaign on the election named by the resource (lease: the run's lock duration),
 * and once leading record the entry in the ledger with the term as the fence (a pending stall, a GC
 * pause, is taken there as in critical-section.ts), write to the fenced log with the term, hold —
 * looking at the term every kLookMs to move the ledger's validity end as renewals move the lease —
 * commit a second write if still leading, and resign. The exit is recorded when the term's signal
 * aborts (on loss, or as resign() begins); a loss is marked in the ledger, so the checker can see
 * that a leader paused past its lease was told.
 */
async function leadership(safety: Safety, context: CycleContext, resources: readonly string[], start: number, out: Timings, long: boolean): Promise<void> {
  const { ledger } = safety;
  const election = electionOf(context.redlock, resources[0]!, context.lockMs);
  const term: Term = await election.campaign({ value: `worker ${safety.worker}`, signal: context.call.signal });
  const acquired = performance.now();
  const { row, resource, entry } = enterSection(safety, resources, { validity: term.validity, fence: term.term, attempts: [] });
  const ended = new Promise<void>((resolve) => {
    const onEnd = (): void => {
      ledger.exit(row);
      if (term.signal.reason instanceof LockLostError) ledger.lost(row);
      resolve();
    };
    if (term.signal.aborted) onEnd();
    else term.signal.addEventListener('abort', onEnd, { once: true });
  });
  ledger.wrote(row, await safety.log.write(resource, term.term, entry));
  const until = performance.now() + (long ? 1.5 * context.lockMs : context.holdMs);
  const stop = context.call.signal!;
  while (!term.signal.aborted && !stop.aborted && performance.now() < until) {
    ledger.extend(row, term.validity);
    await Promise.race([delay(Math.min(kLookMs, Math.max(1, until - performance.now()))), ended]);
  }
  // A leader that lost its term stops acting: only one still leading commits.
  if (!term.signal.aborted) ledger.committed(row, await safety.log.write(resource, term.term, entry));
  out.acquireMs = acquired - start;
  out.extendMs = -1;
  out.attempts = 1;
  const releasing = performance.now();
  await term.resign();
  await ended;
  out.releaseMs = performance.now() - releasing;
}
