import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Lock } from '../../src/index.js';
import { History } from '../../sim/world/history.js';
import { Holders } from '../../sim/world/holders.js';
import { Proc } from '../../sim/world/process.js';
import { Scheduler } from '../../sim/world/scheduler.js';

// The simulation's "lost in the quiet phase" judgement (sim/world/holders.ts kept): an auto-extended
// lock must not be lost unless its process was paused while the lock's validity ran.
const test = suite('simulated holders');

/** An auto-extended lock as a holder sees it, its signal already aborted (lost). */
function lostLock(proc: Proc, validUntil: number): Lock {
  const signal = { aborted: true, reason: 'LockLostError: validity ran out before a renewal succeeded' };
  return { validUntil, get validity() { return validUntil - proc.perfNow(); }, fence: undefined, signal } as unknown as Lock;
}

/**
 * Handover seed 48, in the small: a handover of 150 ms is sent at 0 as the process pauses for 142
 * ms (the releaser's work after release()); the heir's acquire resolves at 142 with 150 − 142 − 3.5
 * = 4.5 ms left, less than a renewal's round trip, and the lock is lost at 146.5.
 */
function heir(pauseFrom: number, sentAt: number): string[] {
  const world = new Scheduler();
  const proc = new Proc(world, 0, 1, 0);
  const holders = new Holders(new History(world, false));
  world.now = pauseFrom;
  proc.pause(142);
  world.now = pauseFrom + 142;
  const lock = lostLock(proc, sentAt + 150 - 3.5);
  const claim = holders.take(proc, lock, 'r0', 'x', 1, 150);
  world.now = 200;
  holders.kept(proc, claim, lock, true);
  return holders.lost;
}

test('a pause after the lock\'s validity began (before acquire resolved) excuses its loss', () => {
  assert.equal(heir(0, 0), []);
});

test('a pause that ended before the lock\'s validity began does not', () => {
  // Paused [-100, 42); the winning attempt went out as the pause ended: the pause ate none of its validity.
  const lost = heir(-100, 42);
  assert.is(lost.length, 1);
  assert.match(lost[0]!, /h0 \(p0\) lost r0 in the quiet phase: LockLostError/);
});

test.run();
