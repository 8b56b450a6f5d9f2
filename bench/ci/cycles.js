// The cycles bench:ci:instr counts under callgrind (bench/ci/instructions.ts): a fixed number of
// acquire → release cycles of the built package (dist/, what users run), on unique keys, at one
// concurrency, against masters started elsewhere. Plain JavaScript: under callgrind, tsx's loader
// alone cost 1.1 billion instructions (half a minute of CPU) per run before the first cycle.
//
//   node bench/ci/cycles.js CONCURRENCY CYCLES URL,URL,… [PLANT_STEPS]
import { Redlock } from '../../dist/index.js';

const [concurrency, cycles, plant] = [process.argv[2], process.argv[3], process.argv[5] ?? '0'].map(Number);
const urls = (process.argv[4] ?? '').split(',');
if (![concurrency, cycles, plant].every((n) => Number.isSafeInteger(n) && n >= 0) || urls[0] === '') {
  throw new RangeError(`usage: node bench/ci/cycles.js CONCURRENCY CYCLES URL,URL,… [PLANT_STEPS], got ${process.argv.slice(2).join(' ')}`);
}
// Durations and budgets far beyond what callgrind's slowdown on a loaded machine can reach (a
// 10 s lock expired there before its quorum answered): the count must not depend on timing.
const kLongMs = 3_600_000;
const redlock = new Redlock(urls, { retryCount: 0, nodeTimeout: kLongMs });
await redlock.ready(kLongMs);

let sink = 0;
/** Planted work (the gate must fail with it): a step is a few instructions the JIT cannot drop, since `sink` is printed. */
function planted(steps) {
  let x = sink;
  for (let i = 0; i < steps; i++) x = (Math.imul(x, 31) + i) | 0;
  sink = x;
}

// In waves: CONCURRENCY acquisitions issued in one tick, then their releases in one tick. Free-running
// loops drifted apart or fell into step from run to run, so how many operations shared a flush and
// replies a read differed, and c64 read 68k or 92k instructions per cycle on one machine
// (docs/decisions/0011); a wave goes out as one flush per master whatever the timing.
for (let next = 0; next < cycles; next += concurrency) {
  const keys = Array.from({ length: Math.min(concurrency, cycles - next) }, (_, i) => `cycles:${process.pid}:${next + i}`);
  const locks = await Promise.all(keys.map((key) => redlock.acquire([key], kLongMs)));
  if (plant > 0) for (let i = 0; i < locks.length; i++) planted(plant);
  await Promise.all(locks.map((lock) => lock.release()));
}
await redlock.quit();
process.stdout.write(`${JSON.stringify({ cycles, sink })}\n`);
