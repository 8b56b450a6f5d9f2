// The cycles bench:ci:instr counts under callgrind (bench/ci/instructions.ts): a fixed number of
// acquire → release cycles of the built package (dist/, what users run), on unique keys, at one
// concurrency, against masters started elsewhere. Plain JavaScript: under callgrind, tsx's loader
// alone cost 1.1 billion instructions (half a minute of CPU) per run before the first cycle.
//
//   node bench/ci/cycles.js CONCURRENCY CYCLES URL,URL,… [PLANT_STEPS] [WARMUP]
// CONCURRENCY, CYCLES, PLANT_STEPS and WARMUP may be lists (comma-separated, one entry each), run in
// turn by one process. With WARMUP, each concurrency's counted cycles follow that many uncounted
// ones, and the process stops at each edge: it prints `warm` and blocks reading a line from stdin
// (the counters are zeroed meanwhile), runs CYCLES, prints `counted` and blocks again (they are read
// meanwhile). One process for all: each start-up under callgrind costs ~1.4 billion instructions (~14 s).
import { readSync, writeSync } from 'node:fs';
import { Redlock } from '../../dist/index.js';

const usage = `usage: node bench/ci/cycles.js CONCURRENCY CYCLES URL,URL,… [PLANT_STEPS] [WARMUP], got ${process.argv.slice(2).join(' ')}`;
const list = (arg) => (arg ?? '').split(',').map(Number);
const concurrencies = list(process.argv[2]);
const [cycles, plants, warmups] = [process.argv[3], process.argv[5] ?? concurrencies.map(() => 0).join(','), process.argv[6] ?? concurrencies.map(() => 0).join(',')].map(list);
const urls = (process.argv[4] ?? '').split(',');
for (const numbers of [concurrencies, cycles, plants, warmups]) {
  if (numbers.length !== concurrencies.length || !numbers.every((n) => Number.isSafeInteger(n) && n >= 0) || urls[0] === '') throw new RangeError(usage);
}
if (concurrencies.includes(0)) throw new RangeError(usage);
const phased = process.argv[6] !== undefined;
/**
 * Says where the run is, then blocks until the counting side answers. Plain reads and writes of fds 0
 * and 1, not process.stdin and process.stdout: with those streams made before the count, c1 counted
 * ~214k instructions per cycle instead of ~183k (docs/decisions/0011).
 */
function edge(word) {
  writeSync(1, `${word}\n`);
  const answer = new Uint8Array(64);
  for (;;) {
    try {
      if (readSync(0, answer) > 0) return;
      throw new Error('bench/ci/cycles.js: stdin closed before the counting side answered');
    } catch (error) {
      if (error.code !== 'EAGAIN') throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    }
  }
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
async function run(concurrency, plant, from, to) {
  for (let next = from; next < to; next += concurrency) {
    const keys = Array.from({ length: Math.min(concurrency, to - next) }, (_, i) => `cycles:${process.pid}:c${concurrency}:${next + i}`);
    const locks = await Promise.all(keys.map((key) => redlock.acquire([key], kLongMs)));
    if (plant > 0) for (let i = 0; i < locks.length; i++) planted(plant);
    await Promise.all(locks.map((lock) => lock.release()));
  }
}
for (const [i, concurrency] of concurrencies.entries()) {
  const [plant, warmup] = [plants[i], warmups[i]];
  if (!phased) {
    await run(concurrency, plant, 0, cycles[i]);
    continue;
  }
  await run(concurrency, plant, 0, warmup);
  // A scavenge now, uncounted, so that none falls inside the count (a full collection here added 37 % at c64).
  globalThis.gc?.({ type: 'minor' });
  edge('warm');
  await run(concurrency, plant, warmup, warmup + cycles[i]);
  edge('counted');
}
await redlock.quit();
writeSync(1, `${JSON.stringify({ cycles, sink })}\n`);
