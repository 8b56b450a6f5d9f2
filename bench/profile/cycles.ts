/**
 * A fixed number of acquire → release cycles of one contender at one concurrency, against masters
 * started elsewhere (bench/profile/instructions.ts runs this under callgrind). Unique keys; exits
 * when done. Prints the lean connections' counters (writes, commands, reply chunks) as JSON.
 *
 *   node --import tsx bench/profile/cycles.ts --contender ID --concurrency N --cycles N --urls URL,…
 */
import { parseArgs } from 'node:util';
import { openContender, pipelockContender } from '../peers/adapters.js';
import { Redlock, type Settings } from '../../src/index.js';
import { REFUSED } from '../peers/contender.js';
import { leanStats } from '../../src/transport/lean/stats.js';

const { values } = parseArgs({
  options: { contender: { type: 'string' }, concurrency: { type: 'string' }, cycles: { type: 'string' }, urls: { type: 'string' } },
});
const concurrency = Number(values.concurrency);
const cycles = Number(values.cycles);
const urls = values.urls!.split(',');
/** pipelock's contenders as bench:peers names them, with a node timeout callgrind's slowdown cannot reach. */
const PIPELOCK: Record<string, Partial<Settings>> = {
  'pipelock': {},
  'pipelock-client': { connection: 'client' },
  'pipelock-scripts': { commands: 'scripts' },
  'pipelock-scripts-client': { commands: 'scripts', connection: 'client' },
  'pipelock-native': { commands: 'native' },
};
const settings = PIPELOCK[values.contender!];
const contender = settings === undefined
  ? await openContender(values.contender!, urls)
  : await slow(new Redlock(urls, { retryCount: 0, nodeTimeout: 60_000, ...settings }));

/** Under callgrind connecting takes longer than ready()'s default 5 s. */
async function slow(redlock: Redlock): ReturnType<typeof pipelockContender> {
  await redlock.ready(120_000);
  return pipelockContender(redlock);
}
let next = 0;
const loop = async (): Promise<void> => {
  while (next < cycles) {
    const lock = await contender.acquire(`cycles:${process.pid}:${next++}`);
    if (lock === REFUSED) throw new Error('a unique key was refused');
    await contender.release(lock);
  }
};
await Promise.all(Array.from({ length: concurrency }, loop));
process.stdout.write(`${JSON.stringify({ cycles, ...leanStats })}\n`);
await contender.close();
process.exit(0);
