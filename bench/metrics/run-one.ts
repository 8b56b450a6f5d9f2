/**
 * One measurement of the observability cost in a fresh process: the peer benchmark's workload
 * (acquire + release, retryCount 0, 1M keys) with pipelock from `--src` (a source tree: this one,
 * or a baseline commit's) and the listeners of `--variant`. Prints one JSON line.
 *
 *   node --import tsx bench/metrics/run-one.ts --variant off|prom|otel --src DIR --urls … --concurrency 64
 */
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { REFUSED, TTL_MS, type Contender } from '../peers/contender.js';
import { RedisCpu } from '../peers/redis-cpu.js';
import { runWorkload } from '../peers/workload.js';

const { values } = parseArgs({
  options: {
    variant: { type: 'string', default: 'off' },
    src: { type: 'string' },
    urls: { type: 'string' },
    concurrency: { type: 'string', default: '64' },
    'warmup-ms': { type: 'string', default: '1000' },
    'duration-ms': { type: 'string', default: '4000' },
  },
});
if (values.src === undefined || values.urls === undefined) throw new Error('--src and --urls are required');
const urls = values.urls.split(',');
for (const url of urls) {
  const { hostname, port } = new URL(url);
  if (hostname !== '127.0.0.1' || port === '6379') throw new Error(`refusing ${url}: loopback masters on their own ports only`);
}
const pipelock = await import(pathToFileURL(join(values.src, 'index.ts')).href) as typeof import('../../src/index.js');
let close = (): void => undefined;
if (values.variant === 'prom') {
  const { Registry } = await import('prom-client');
  const { prometheusMetrics } = await import('../../src/metrics/index.js');
  const handle = prometheusMetrics({ registry: new Registry() });
  close = () => {
    handle.close();
  };
} else if (values.variant === 'otel') {
  const { MeterProvider } = await import('@opentelemetry/sdk-metrics');
  const { openTelemetryMetrics } = await import('../../src/metrics/index.js');
  const handle = openTelemetryMetrics({ meter: new MeterProvider().getMeter('bench') });
  close = () => {
    handle.close();
  };
} else if (values.variant !== 'off') {
  throw new Error(`--variant must be off, prom or otel, got ${values.variant}`);
}
const redlock = new pipelock.Redlock(urls, { retryCount: 0 });
await redlock.ready();
const contender: Contender = {
  async acquire(key) {
    try {
      return await redlock.acquire([key], TTL_MS);
    } catch (error) {
      if (error instanceof pipelock.ResourceLockedError) return REFUSED;
      throw error;
    }
  },
  async release(lock) {
    await (lock as import('../../src/index.js').Lock).release();
  },
  close: () => redlock.quit(),
};
const redisCpu = await RedisCpu.open(urls);
const concurrency = Number(values.concurrency);
const measurement = await runWorkload(contender, { id: `c${concurrency}`, label: '', concurrency, keys: 1_000_000 }, { warmupMs: Number(values['warmup-ms']), durationMs: Number(values['duration-ms']) }, redisCpu);
await contender.close();
redisCpu.close();
close();
process.stdout.write(`${JSON.stringify({ variant: values.variant, src: values.src, ...measurement })}\n`);
process.exit(0);
