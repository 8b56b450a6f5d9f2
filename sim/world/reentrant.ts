import type { ReentrantLock, ReentrantRedlock } from '../../src/index.js';
import { outcome, sleep, type Worker } from './workloads.js';

const kDurations = [300, 1000, 2500];

/**
 * A holder inside the shared lock acts: it knows only that its signal has not aborted. Entering
 * (or acting in) a lock whose validity is gone is a violation of its own: the signal must read the
 * clock (review-r4 item 1), whatever timers of the process have not run yet.
 */
function act(w: Worker, holder: string, owner: string, resource: string, handle: ReentrantLock, checked: number): boolean {
  if (handle.signal.aborted) return false;
  const { proc } = w;
  if (handle.validity <= 0) {
    w.holders.violations.push({ property: 'reentrant', resource, at: proc.world.now, text: `${holder} (p${proc.id}) acted in ${resource} with validity ${handle.validity.toFixed(1)} ms and its signal not aborted` });
  }
  w.holders.instant(proc, holder, resource, proc.pausedWithin(checked, proc.world.now), owner);
  return true;
}

/** Sometimes the loop blocks, past the lease too: a nested holder must then find the signal aborted. */
function maybeBlock(w: Worker, duration: number): void {
  const { random, proc, history } = w;
  const kind = random.weighted([[6, 'none'], [2, 'callbacks'], [2, 'sync']] as const);
  if (kind === 'none') return;
  const ms = random.between(1, Math.round(duration * 1.5));
  if (kind === 'callbacks') {
    proc.pause(ms);
    history.log(proc.id, `stalls ${ms} ms`);
  } else {
    history.log(proc.id, `blocks its event loop ${ms} ms`);
    proc.world.stallWorld(ms);
  }
}

/** Nested holders of one owner: acquire() inside the context again (no round trip), act, sometimes nest deeper. */
async function nest(w: Worker, re: ReentrantRedlock, resource: string, duration: number, owner: string, outer: ReentrantLock, depth: number): Promise<void> {
  const { random, proc, history } = w;
  const holder = w.holders.label();
  let checked = proc.world.now;
  maybeBlock(w, duration);
  if (random.chance(0.5)) await sleep(random.between(1, Math.round(duration / 2)));
  const op = history.op(proc.id, `nested ${resource} (${holder}, depth ${depth})`);
  try {
    await re.using([resource], duration, async (signal) => {
      for (let i = random.between(1, 3); i > 0 && !signal.aborted; i--) {
        if (!act(w, holder, owner, resource, outer, checked)) break;
        checked = proc.world.now;
        if (depth < 3 && random.chance(0.3)) await nest(w, re, resource, duration, owner, outer, depth + 1);
        await sleep(random.between(1, 300));
      }
    });
    history.settle(op, 'ok');
  } catch (error) {
    history.settle(op, outcome(error));
  }
}

/** Reentrant holders: an outermost auto-extended lock of one async context, entered again by nested using(). */
export async function reentrants(w: Worker, until: number): Promise<void> {
  const { proc, random, history } = w;
  const view = w.reentrant!;
  while (proc.world.now < until) {
    const resource = random.pick(w.resources);
    const duration = random.pick(kDurations);
    const holder = w.holders.label();
    const op = history.op(proc.id, `reentrant ${resource} ${duration} (${holder})`);
    try {
      await view.run(async () => {
        const outer = await view.acquire([resource], duration, { retryCount: random.between(0, 20) });
        history.log(proc.id, `${holder} holds ${resource} (reentrant)`);
        try {
          const checked = proc.world.now;
          if (act(w, holder, holder, resource, outer, checked)) await nest(w, view, resource, duration, holder, outer, 1);
        } finally {
          await outer.release().catch((error: unknown) => { history.log(proc.id, `${holder} release: ${outcome(error)}`); });
        }
      });
      history.settle(op, 'ok');
    } catch (error) {
      history.settle(op, outcome(error));
    }
    await sleep(random.between(0, 200));
  }
}
