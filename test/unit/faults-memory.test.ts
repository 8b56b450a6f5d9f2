import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { kLiveLimits, memoryFigures, memoryProblems, type MemorySample } from '../../bench/faults/memory.js';

const test = suite('faults: stall memory');

const MB = 1024 * 1024;
/** Steady from 2 s, stalled from 5 s to 35 s, the run ends at 50 s. */
const times = { steady: 2_000, stallStart: 5_000, stallEnd: 35_000, end: 50_000 };

/** A sample every 250 ms of `mb(at)` MB. */
function run(mb: (at: number) => number, every = 250): MemorySample[] {
  const samples: MemorySample[] = [];
  for (let at = 0; at <= times.end; at += every) samples.push({ at, bytes: mb(at) * MB });
  return samples;
}

/** A GC sawtooth of 40 MB over `base`, one cycle a second. */
const sawtooth = (base: number) => (at: number): number => base + 40 * ((at % 1_000) / 1_000);

test('a bounded stall: a sawtooth 60 MB higher while stalled, back after the resume, passes', () => {
  const f = memoryFigures(run((at) => sawtooth(200)(at) + (at >= times.stallStart && at < times.stallEnd + 3_000 ? 60 : 0)), times);
  assert.is(f.baselineMb, 230, 'the sawtooth\'s peak (sampled every 250 ms)');
  assert.is(f.stallPeakMb, 290);
  assert.is(f.stallGrowthMb, 0);
  assert.is(f.settledMb, 230);
  assert.equal(memoryProblems(f), []);
});

test('one garbage-collection peak of +60 MB late in the stall is not growth', () => {
  const f = memoryFigures(run((at) => sawtooth(200)(at) + (at >= 33_000 && at < 34_000 ? 60 : 0)), times);
  assert.is(f.stallPeakMb, 290);
  assert.is(f.stallGrowthMb, 5, 'its samples move the median by half a step of the sawtooth');
  assert.equal(memoryProblems(f), []);
});

test('a leak of 55 MB/s while stalled, never given back, fails on all three counts', () => {
  const leak = (at: number): number => 200 + 55 * Math.max(0, (Math.min(at, times.stallEnd) - times.stallStart) / 1_000);
  const problems = memoryProblems(memoryFigures(run(leak), times));
  assert.is(problems.length, 3, problems.join('; '));
  assert.match(problems[0]!, /RSS peaked 1636 MB over its fault-free level during the stall \(limit 150 MB\)/);
  assert.match(problems[1]!, /still grew 550 MB in the stall's last third \(limit 40 MB\)/);
  assert.match(problems[2]!, /still 1650 MB over its fault-free level 10 s after the resume/);
});

test('a leak that began late in the stall, still within the limit, fails as growing; memory kept long after the resume fails as not given back', () => {
  const late = memoryProblems(memoryFigures(run((at) => 200 + (at >= 25_000 && at < times.stallEnd ? 10 * ((at - 25_000) / 1_000) : 0)), times));
  assert.equal(late.length, 1, late.join('; '));
  assert.match(late[0]!, /^RSS still grew 49 MB in the stall's last third \(limit 40 MB\)$/);
  const kept = memoryProblems(memoryFigures(run((at) => (at >= times.stallEnd ? 370 : at >= times.stallStart ? 260 : 200)), times));
  assert.equal(kept.length, 1, kept.join('; '));
  assert.match(kept[0]!, /still 170 MB over its fault-free level 10 s after the resume \(limit 150 MB\)/);
});

test('what is live, sampled each second: the stall\'s bounded state given back passes; more than 8 MB kept after the resume, or growth, fails', () => {
  const state = (at: number): number => (at >= times.stallStart && at < times.stallEnd + 1_000 ? 12 : 0);
  const live = (kept: number) => (at: number): number => 40 + state(at) + (at >= times.stallEnd ? kept : 0);
  const bounded = memoryFigures(run(live(0), 1_000), times, kLiveLimits);
  assert.is(bounded.stallPeakMb - bounded.baselineMb, 12);
  assert.equal(memoryProblems(bounded, kLiveLimits), []);
  assert.equal(memoryProblems(memoryFigures(run(live(8), 1_000), times, kLiveLimits), kLiveLimits), [], '8 MB kept: at the limit');
  assert.equal(memoryProblems(memoryFigures(run(live(9), 1_000), times, kLiveLimits), kLiveLimits),
    ['memory in use was still 9 MB over its fault-free level 5 s after the resume (limit 8 MB)']);
  const leak = (at: number): number => 40 + (at >= times.stallStart ? Math.min(at, times.stallEnd) - times.stallStart : 0) / 1_000;
  assert.equal(memoryProblems(memoryFigures(run(leak, 1_000), times, kLiveLimits), kLiveLimits), [
    'memory in use still grew 10 MB in the stall\'s last third (limit 8 MB)',
    'memory in use was still 30 MB over its fault-free level 5 s after the resume (limit 8 MB)',
  ], 'a leak of 1 MB/s while stalled, never given back');
});

test.run();
