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

let next = 0;
async function loop() {
  while (next < cycles) {
    const lock = await redlock.acquire([`cycles:${process.pid}:${next++}`], kLongMs);
    if (plant > 0) planted(plant);
    await lock.release();
  }
}
await Promise.all(Array.from({ length: concurrency }, loop));
await redlock.quit();
process.stdout.write(`${JSON.stringify({ cycles, sink })}\n`);
