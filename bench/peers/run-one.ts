/**
 * One measurement in a fresh process: one contender, one workload, against masters started by
 * the caller. Prints one JSON line (a RunResult) on stdout.
 *
 *   node --import tsx bench/peers/run-one.ts --contender pipelock --config c64 \
 *     --urls redis://127.0.0.1:PORT,… [--warmup-ms 1000] [--duration-ms 5000]
 *
 * A cluster configuration (cluster64) takes `--urls` as members separated by `;`, each the comma
 * list of its shards' URLs.
 */
import { parseArgs } from 'node:util';
import { openContender } from './adapters.js';
import { ClusterCalls, openClusterContender, type ClusterCounts } from './cluster.js';
import { configById, contenderInfo } from './contender.js';
import { RedisCpu } from './redis-cpu.js';
import { runWorkload, type Measurement } from './workload.js';

export interface RunResult extends Measurement {
  readonly contender: string;
  readonly config: string;
  readonly concurrency: number;
  readonly keys: number;
  readonly warmupMs: number;
  readonly durationMs: number;
  /** Cluster configurations only. */
  readonly cluster?: ClusterCounts;
}

const { values } = parseArgs({
  options: {
    contender: { type: 'string' },
    config: { type: 'string' },
    urls: { type: 'string' },
    'warmup-ms': { type: 'string', default: '1000' },
    'duration-ms': { type: 'string', default: '5000' },
  },
});
if (values.contender === undefined || values.config === undefined || values.urls === undefined) {
  console.error('usage: run-one.ts --contender ID --config ID --urls URL,URL,… [--warmup-ms N] [--duration-ms N]');
  process.exit(2);
}
const info = contenderInfo(values.contender);
const config = configById(values.config);
const members = values.urls.split(';').map((member) => member.split(','));
const urls = members.flat();
if (config.cluster === undefined && members.length > 1) throw new Error(`--urls: ${config.id} runs on standalone masters (no ";")`);
for (const url of urls) {
  // Benchmarks only ever talk to the masters they started; never to the machine's own Redis.
  const { hostname, port } = new URL(url);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(hostname) || port === '6379' || port === '') throw new Error(`refusing ${url}: loopback masters on their own ports only`);
}
const timing = { warmupMs: Number(values['warmup-ms']), durationMs: Number(values['duration-ms']) };

const redisCpu = await RedisCpu.open(urls);
const calls = config.cluster === undefined ? undefined : await ClusterCalls.open(members);
const contender = config.cluster === undefined ? await openContender(info.id, urls) : await openClusterContender(info.id, members);
const measurement = await runWorkload(contender, config, timing, redisCpu, calls);
await contender.close();
redisCpu.close();
calls?.close();
const result: RunResult = { contender: info.id, config: config.id, concurrency: config.concurrency, keys: config.keys, ...timing, ...measurement, ...(calls === undefined ? {} : { cluster: calls.counts() }) };
process.stdout.write(`${JSON.stringify(result)}\n`);
// ioredis and @redis/client sockets are closed; exit without waiting on stray timers of peers.
process.exit(0);
