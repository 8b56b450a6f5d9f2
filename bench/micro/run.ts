/**
 * The micro suites (tinybench), written to bench/results/micro.json for bench/report.ts.
 *
 *   node --import tsx bench/micro/run.ts [--time-ms 500] [--out bench/results/micro.json]
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { Bench } from 'tinybench';
import { hostInfo, ROOT, type Host } from '../lib/host.js';
import { argsSuite, cycleSuite, quorumSuite, replySuite, tokenSuite, validitySuite } from './suites.js';

export interface MicroTask {
  readonly name: string;
  readonly opsPerSec: number;
  /** Nanoseconds per operation. */
  readonly meanNs: number;
  readonly p50Ns: number;
  readonly p99Ns: number;
  /** Relative margin of error of the mean, %. */
  readonly rme: number;
  readonly samples: number;
}

export interface MicroResult {
  readonly kind: 'pipelock-bench-micro';
  readonly host: Host;
  readonly timeMs: number;
  readonly tasks: readonly MicroTask[];
}

const { values } = parseArgs({
  options: {
    'time-ms': { type: 'string', default: '500' },
    out: { type: 'string', default: join(ROOT, 'bench', 'results', 'micro.json') },
  },
});
const timeMs = Number(values['time-ms']);
if (!Number.isSafeInteger(timeMs) || timeMs <= 0) throw new Error(`--time-ms must be a positive integer, got ${values['time-ms']}`);

const bench = new Bench({ time: timeMs, warmup: true });
for (const suite of [tokenSuite, argsSuite, quorumSuite, validitySuite, replySuite]) suite(bench);
const close = await cycleSuite(bench);
await bench.run();
await close();

const tasks: MicroTask[] = [];
for (const task of bench.tasks) {
  const result = task.result;
  if (result.state !== 'completed') throw new Error(`micro: ${task.name} ${result.state}${result.state === 'errored' ? `: ${result.error.message}` : ''}`);
  tasks.push({
    name: task.name,
    opsPerSec: result.throughput.mean,
    meanNs: result.latency.mean * 1e6,
    p50Ns: result.latency.p50 * 1e6,
    p99Ns: result.latency.p99 * 1e6,
    rme: result.latency.rme,
    samples: result.latency.samples?.length ?? 0,
  });
  console.log(`${task.name.padEnd(58)} ${Math.round(result.throughput.mean).toLocaleString('en-US').padStart(14)} ops/s  ${(result.latency.mean * 1e6).toFixed(0).padStart(9)} ns/op  ±${result.latency.rme.toFixed(1)}%`);
}
const out: MicroResult = { kind: 'pipelock-bench-micro', host: hostInfo(['tinybench', '@redis/client'], `node --import tsx bench/micro/run.ts ${process.argv.slice(2).join(' ')}`.trim()), timeMs, tasks };
await mkdir(dirname(values.out), { recursive: true });
await writeFile(values.out, `${JSON.stringify(out, null, 1)}\n`);
console.log(`micro: wrote ${relative(ROOT, values.out)}`);
