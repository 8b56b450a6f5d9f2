import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Cycle, CycleContext } from '../../tools/src/load/cycle.js';
import { decode } from '../../tools/src/load/histogram.js';
import { kOpenInFlight, openLoop, type Loop } from '../../tools/src/load/loops.js';
import { Plan } from '../../tools/src/load/schedule.js';
import { Meter } from '../../tools/src/load/meter.js';

const test = suite('loadtest open loop');

/** Cycles that wait for `open` (the masters falling behind, then catching up), counting how many run at once. */
function gated(): { cycle: Cycle; open: () => void; running: () => number; most: () => number } {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let running = 0;
  let most = 0;
  const cycle: Cycle = async (_context, _resources, start, out) => {
    most = Math.max(most, ++running);
    await gate;
    running--;
    out.acquireMs = performance.now() - start;
    out.releaseMs = 0;
  };
  return { cycle, open: release, running: () => running, most: () => most };
}

/** An open loop from now, measuring [now, now + windowMs) and stopping then. */
function loopOf(cycle: Cycle, windowMs: number): { loop: Loop; meter: Meter; origin: number } {
  const origin = performance.now();
  const ending = new AbortController();
  setTimeout(() => {
    ending.abort();
  }, windowMs);
  const meter = new Meter({ contenders: 0, attempts: false, open: true });
  const loop: Loop = {
    cycle,
    context: { holdMs: 0 } as CycleContext,
    meter,
    window: { from: origin, to: origin + windowMs, countAll: false, byEnd: true },
    keys: 1000,
    prefix: 'open:',
    worker: 0,
    workers: 1,
    signal: ending.signal,
    cancel: new AbortController().signal,
    stages: [{ durationMs: windowMs, target: 20_000, ramp: false }],
  };
  return { loop, meter, origin };
}

test('past what is served, at most kOpenInFlight cycles run; the rest start as cycles end, timed from when they were due', async () => {
  const { cycle, open, most } = gated();
  const { loop, meter, origin } = loopOf(cycle, 400);
  // 20,000/s: 2,000 cycles are due by the time the gate opens.
  const running = openLoop(loop, { plan: new Plan(0, loop.stages, 1 / 1000), origin, offset: 0, peak: 20_000 });
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.is(most(), kOpenInFlight);
  open();
  await running;
  const report = meter.report(0, { cpuUserMs: 0, cpuSystemMs: 0, elu: 0, measuredMs: 400 });
  // Every cycle due in the window completed in it or is counted late.
  assert.ok(report.late !== undefined && Math.abs(report.cycles + report.late - 8000) <= 2, `cycles ${report.cycles} + late ${String(report.late)}`);
  // The 1,000 cycles due in the first 50 ms waited at least 50 ms, most of them in the generator
  // (only 256 ran): timed from when they were due, that wait is in their latency.
  const cycles = decode(report.histograms.cycle);
  const p = 100 * (1 - 900 / cycles.totalCount);
  assert.ok(cycles.getValueAtPercentile(p) >= 45_000, `p${p.toFixed(1)} ${cycles.getValueAtPercentile(p)} µs over ${cycles.totalCount} cycles`);
  cycles.destroy();
});

test('due in the window and not completed by its end, never started or still running: late, not failed', async () => {
  const { cycle, open, running } = gated();
  const { loop, meter, origin } = loopOf(cycle, 200);
  const done = openLoop(loop, { plan: new Plan(0, loop.stages, 1 / 1000), origin, offset: 0, peak: 20_000 });
  // The masters answer nothing until the window is over.
  await new Promise((resolve) => setTimeout(resolve, 250));
  assert.is(running(), kOpenInFlight);
  open();
  await done;
  const report = meter.report(0, { cpuUserMs: 0, cpuSystemMs: 0, elu: 0, measuredMs: 200 });
  assert.is(report.cycles, 0);
  assert.equal(report.errors, {});
  assert.ok(report.late !== undefined && Math.abs(report.late - 4000) <= 1, `late ${String(report.late)}`);
});

test.run();
