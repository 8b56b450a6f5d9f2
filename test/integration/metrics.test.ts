import '../helpers/setup.js';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader, type HistogramMetricData } from '@opentelemetry/sdk-metrics';
import { Registry } from 'prom-client';
import * as assert from 'uvu/assert';
import { mastersSuite } from '../helpers/masters.js';
import { closeAll, connectAll } from '../helpers/redis.js';
import { timed } from '../helpers/timeout.js';
import { LockLostError, Redlock, ResourceLockedError, type Lock } from '../../src/index.js';
import { openTelemetryMetrics, prometheusMetrics, RENEWAL_CHANNEL, WAIT_BUCKETS, type RenewalMessage } from '../../src/metrics/index.js';
import { startMetricsServer } from '../../examples/metrics.js';

// pipelock/metrics against real masters: every number scraped is one this test caused.
const test = mastersSuite('metrics', { count: 3, healEach: true, flushEach: true });

type Json = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

function value(metrics: Json, name: string, labels: Record<string, string | number> = {}, suffix?: string): number {
  const metric = metrics.find((m) => m.name === name);
  if (metric === undefined) throw new Error(`${name} is not registered`);
  const values = metric.values as { value: number; labels: Record<string, string | number>; metricName?: string }[];
  let sum = 0;
  for (const v of values) {
    if (suffix !== undefined && v.metricName !== `${name}${suffix}`) continue;
    if (Object.entries(labels).every(([k, l]) => v.labels[k] === l)) sum += v.value;
  }
  return sum;
}

function nextRenewal(renewed: boolean): Promise<RenewalMessage> {
  return new Promise((resolve) => {
    const listener = (message: unknown): void => {
      if ((message as RenewalMessage).renewed !== renewed) return;
      unsubscribe(RENEWAL_CHANNEL, listener);
      resolve(message as RenewalMessage);
    };
    subscribe(RENEWAL_CHANNEL, listener);
  });
}

test('prom-client: waits, outcomes by code, retries, held and auto-extended gauges, master calls', timed(20_000, async ({ masters }) => {
  const registry = new Registry();
  const metrics = prometheusMetrics({ registry });
  const redlock = new Redlock(masters.urls, { retryCount: 0 });
  try {
    await redlock.ready();
    const a = await redlock.acquire(['m:a'], 10_000);
    const refused = await redlock.acquire(['m:a'], 10_000, { retryCount: 2, retryDelay: 10, retryJitter: 0 }).catch((e: unknown) => e);
    assert.instance(refused, ResourceLockedError);
    const a2 = await a.extend(10_000);
    const b = await redlock.acquire(['m:b'], 10_000, { autoExtend: true });
    let m = await registry.getMetricsAsJSON();
    assert.is(value(m, 'pipelock_operations_total', { operation: 'acquire', code: 'OK' }), 2);
    assert.is(value(m, 'pipelock_operations_total', { operation: 'acquire', code: 'ERR_PIPELOCK_RESOURCE_LOCKED' }), 1);
    assert.is(value(m, 'pipelock_operations_total', { operation: 'extend', code: 'OK' }), 1);
    assert.is(value(m, 'pipelock_acquire_retries_total'), 2, 'two retries after the first lost attempt');
    assert.is(value(m, 'pipelock_lock_wait_seconds', {}, '_count'), 3);
    assert.is(value(m, 'pipelock_lock_wait_seconds', { code: 'ERR_PIPELOCK_RESOURCE_LOCKED', le: 0.01 }, '_bucket'), 0, 'the refusal waited two 10 ms retry delays');
    // Two 10 ms delays; a libuv timer may ring up to 1 ms before performance.now() reaches its time
    // (the loop's clock is cached in whole ms), so two delays measure at least 18 ms.
    assert.ok(value(m, 'pipelock_lock_wait_seconds', { code: 'ERR_PIPELOCK_RESOURCE_LOCKED' }, '_sum') >= 0.018);
    assert.is(value(m, 'pipelock_held_locks'), 2, 'a (replaced by its extension) and b');
    assert.is(value(m, 'pipelock_auto_extended_locks'), 1);
    for (const master of masters.urls.map((url) => new URL(url).host)) {
      assert.ok(value(m, 'pipelock_master_call_duration_seconds', { master, result: 'ok' }, '_count') >= 4, `calls to ${master} timed`);
    }
    await a2.release();
    await b.release();
    m = await registry.getMetricsAsJSON();
    assert.is(value(m, 'pipelock_operations_total', { operation: 'release', code: 'OK' }), 2);
    assert.is(value(m, 'pipelock_operation_duration_seconds', { operation: 'release' }, '_count'), 2);
    assert.is(value(m, 'pipelock_held_locks'), 0);
    assert.is(value(m, 'pipelock_auto_extended_locks'), 0);
  } finally {
    await redlock.quit();
    metrics.close();
  }
}));

test('prom-client: contention metrics: waiting callers, refused attempts, hold time, by a resource template', timed(20_000, async ({ masters }) => {
  const registry = new Registry();
  const metrics = prometheusMetrics({ registry, resourceLabel: 'orders:*' });
  const holder = new Redlock(masters.urls, { retryCount: 0 });
  const waiters = new Redlock(masters.urls, { retryCount: 200, retryDelay: 20, retryJitter: 0 });
  try {
    await Promise.all([holder.ready(), waiters.ready()]);
    const held = await holder.acquire(['orders:42'], 10_000);
    const waiting = [0, 1, 2].map(() => waiters.acquire(['orders:42'], 10_000));
    const other = await holder.acquire(['users:7'], 10_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    let m = await registry.getMetricsAsJSON();
    assert.is(value(m, 'pipelock_waiting_callers', { resource: 'orders:*' }), 3, 'three acquire() calls wait');
    assert.ok(value(m, 'pipelock_contention_total', { resource: 'orders:*' }) >= 3, 'each was refused at least once');
    await held.release();
    for (const call of waiting) await (await call).release();
    await other.release();
    m = await registry.getMetricsAsJSON();
    assert.is(value(m, 'pipelock_waiting_callers', { resource: 'orders:*' }), 0);
    assert.is(value(m, 'pipelock_lock_hold_seconds', { resource: 'orders:*' }, '_count'), 4, 'four holdings of orders:42 ended');
    assert.ok(value(m, 'pipelock_lock_hold_seconds', { resource: 'orders:*' }, '_sum') >= 0.09, 'the first was held across the 100 ms wait');
    assert.is(value(m, 'pipelock_lock_hold_seconds', { resource: 'other' }, '_count'), 1, 'a resource no template matches is other');
  } finally {
    await holder.quit();
    await waiters.quit();
    metrics.close();
  }
}));

test('prom-client: renewals, a lost lock, an expired lock leaves the gauge, a master error', timed(20_000, async ({ masters }) => {
  const registry = new Registry();
  const metrics = prometheusMetrics({ registry, resourceLabel: (r) => r[0]!.split(':')[0]! });
  const redlock = new Redlock(masters.urls, { retryCount: 0, automaticExtensionThreshold: 100 });
  const probes = await connectAll(masters.urls);
  try {
    await redlock.ready();
    const renewed = nextRenewal(true);
    const lock: Lock = await redlock.acquire(['job:1'], 400, { autoExtend: true });
    await renewed;
    // Taken from under it on every master: the next renewal finds it gone on a quorum.
    const failed = nextRenewal(false);
    await Promise.all(probes.map((p) => p.del('job:1')));
    await failed;
    assert.instance(lock.signal!.reason, LockLostError);
    await redlock.acquire(['short:1'], 200);
    let m = await registry.getMetricsAsJSON();
    assert.ok(value(m, 'pipelock_renewals_total', { result: 'renewed' }) >= 1);
    assert.is(value(m, 'pipelock_renewals_total', { result: 'failed' }), 1);
    assert.is(value(m, 'pipelock_locks_lost_total', { code: 'ERR_PIPELOCK_LOCK_LOST', resource: 'job' }), 1);
    assert.is(value(m, 'pipelock_held_locks', { resource: 'job' }), 0, 'a lost lock is not held');
    assert.is(value(m, 'pipelock_held_locks', { resource: 'short' }), 1);
    await new Promise((resolve) => setTimeout(resolve, 250));
    m = await registry.getMetricsAsJSON();
    assert.is(value(m, 'pipelock_held_locks'), 0, 'an unreleased lock whose validity ran out is not held');

    await masters.masters[2]!.stop();
    await redlock.acquire(['after:stop'], 1000);
    m = await registry.getMetricsAsJSON();
    const stopped = new URL(masters.urls[2]!).host;
    const errors = (m.find((x) => x.name === 'pipelock_master_errors_total')!.values as { labels: { master?: string; code?: string }; value: number }[]);
    assert.ok(errors.some((e) => e.labels.master === stopped && e.value >= 1), `an error counted for ${stopped}: ${JSON.stringify(errors)}`);
    assert.ok(errors.every((e) => e.labels.master === stopped), 'only the stopped master');
  } finally {
    await closeAll(probes);
    await redlock.quit();
    metrics.close();
  }
}));

test('OpenTelemetry: the same events on OTel instruments, with semantic-convention attributes and lock-latency buckets', timed(20_000, async ({ masters }) => {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
  const provider = new MeterProvider({ readers: [reader] });
  const metrics = openTelemetryMetrics({ meter: provider.getMeter('test') });
  const redlock = new Redlock(masters.urls, { retryCount: 0 });
  try {
    await redlock.ready();
    const lock = await redlock.acquire(['o:1'], 10_000, { autoExtend: true });
    await redlock.acquire(['o:1'], 10_000).catch(() => undefined);
    let { resourceMetrics } = await reader.collect();
    let all = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics);
    const find = (name: string) => all.find((x) => x.descriptor.name === name);
    const points = (name: string) => find(name)?.dataPoints ?? [];
    const ops = points('pipelock.operations');
    assert.equal(ops.map((p) => `${JSON.stringify(p.attributes)} ${JSON.stringify(p.value)}`).sort(), [
      '{"pipelock.operation":"acquire","error.type":"ERR_PIPELOCK_RESOURCE_LOCKED"} 1',
      '{"pipelock.operation":"acquire"} 1',
    ]);
    const wait = find('pipelock.lock.wait.duration') as HistogramMetricData;
    assert.is(wait.descriptor.unit, 's');
    assert.equal(wait.dataPoints[0]!.value.buckets.boundaries, [...WAIT_BUCKETS]);
    assert.is(wait.dataPoints.reduce((n, p) => n + p.value.count, 0), 2);
    assert.equal(points('pipelock.lock.held').map((p) => p.value), [1]);
    assert.equal(points('pipelock.lock.auto_extended').map((p) => p.value), [1]);
    await lock.release();
    ({ resourceMetrics } = await reader.collect());
    all = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics);
    assert.equal(points('pipelock.lock.held').map((p) => p.value), [0]);
    assert.is(points('pipelock.master.call.duration').length, 3, 'one series per master');
  } finally {
    await redlock.quit();
    metrics.close();
    await provider.shutdown();
  }
}));

test('the example serves /metrics: a scrape shows what the example did', timed(20_000, async ({ masters }) => {
  const registry = new Registry();
  const server = await startMetricsServer(masters.urls, registry, 0);
  const url = server.url;
  try {
    const text = await (await fetch(`${url}/work?n=3`)).text();
    assert.is(text, 'did 3 locked jobs\n');
    const scrape = await (await fetch(`${url}/metrics`)).text();
    assert.match(scrape, /^pipelock_operations_total\{operation="acquire",code="OK"\} 3$/m);
    assert.match(scrape, /^pipelock_operations_total\{operation="release",code="OK"\} 3$/m);
    assert.match(scrape, /^pipelock_lock_wait_seconds_bucket\{le="\+Inf",code="OK"\} 3$/m);
    assert.match(scrape, /^pipelock_held_locks 0$/m);
    assert.match((await fetch(`${url}/metrics`)).headers.get('content-type') ?? '', /^text\/plain/);
  } finally {
    await server.close();
  }
}));

test.run();
