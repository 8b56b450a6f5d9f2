// Runs seeds of a simulation scenario in this thread of a fresh process and prints their outcomes as
// JSON (test/unit/sim-pool.test.ts): the unit tier's own process has loaded pipelock before, so its
// in-thread runs are not "alone".
import { SeedPool } from '../../sim/world/pool.js';

const [scenario, ...seeds] = process.argv.slice(2);
const outcomes = await new SeedPool(1).run(scenario!, seeds.map(Number));
process.stdout.write(JSON.stringify(outcomes));
