import '../helpers/setup.js';
import { readFileSync } from 'node:fs';
import { Registry } from 'prom-client';
import * as assert from 'uvu/assert';
import { mastersSuite } from '../helpers/masters.js';
import { Redlock, ResourceLockedError } from '../../src/index.js';
import { prometheusMetrics } from '../../src/metrics/index.js';
import { dashboardQueries, kDashboardFile } from '../../scripts/docs/dashboard.js';
import type { Dashboard } from '@grafana/schema';

/**
 * docs/dashboard/pipelock.json against a real registry: a short run over local masters fills it,
 * then every metric the dashboard's queries name must be registered (a histogram's _bucket, _sum and
 * _count by its own name) and every label they match or group by must be one the metric has (or a
 * label the scrape adds: job, instance; le on buckets). The JSON's shape is typechecked where it is
 * built (scripts/docs/dashboard.ts, against @grafana/schema's Dashboard).
 */
const test = mastersSuite('grafana dashboard', { count: 3, flushEach: true });

const kScrapeLabels = new Set(['job', 'instance']);

interface Family {
  readonly type: string;
  readonly labels: ReadonlySet<string>;
}

async function filledRegistry(urls: readonly string[]): Promise<Map<string, Family>> {
  const registry = new Registry();
  const metrics = prometheusMetrics({ registry });
  const redlock = new Redlock(urls, { retryCount: 1, retryDelay: 10, retryJitter: 0 });
  try {
    await redlock.ready();
    for (let i = 0; i < 20; i++) {
      const lock = await redlock.acquire([`grafana:${i % 4}`], 5_000);
      await (await lock.extend(5_000)).release();
    }
    const held = await redlock.acquire(['grafana:held'], 1_000, { autoExtend: true });
    const refused = await redlock.acquire(['grafana:held'], 1_000).then(() => undefined, (error: unknown) => error);
    assert.instance(refused, ResourceLockedError);
    await new Promise((resolve) => setTimeout(resolve, 800)); // one renewal
    await held.release();
    const families = new Map<string, Family>();
    for (const metric of await registry.getMetricsAsJSON()) {
      const single = registry.getSingleMetric(metric.name) as unknown as { labelNames?: readonly string[] };
      families.set(metric.name, { type: String(metric.type), labels: new Set(single.labelNames ?? []) });
    }
    // The core series are there after the run, with only the labels their metric declares.
    const text = await registry.metrics();
    for (const series of ['pipelock_operations_total{operation="acquire",code="OK"}', 'pipelock_operations_total{operation="acquire",code="ERR_PIPELOCK_RESOURCE_LOCKED"}', 'pipelock_lock_wait_seconds_bucket{', 'pipelock_master_call_duration_seconds_bucket{', 'pipelock_renewals_total{result="renewed"}']) {
      assert.ok(text.includes(series), `${series} scraped after the run`);
    }
    return families;
  } finally {
    await redlock.quit();
    metrics.close();
  }
}

test('every metric and label the dashboard queries is exported', async ({ masters }) => {
  const families = await filledRegistry(masters.urls);
  const dashboard = JSON.parse(readFileSync(kDashboardFile, 'utf8')) as Dashboard;
  const queries = dashboardQueries(dashboard);
  assert.ok(queries.length >= 15, `${queries.length} queries`);
  const used = new Set<string>();
  for (const query of queries) {
    const names = [...new Set(query.match(/\bpipelock_[a-z_]+\b/g) ?? [])];
    assert.ok(names.length > 0, `${query} names a pipelock metric`);
    const allowed: Set<string>[] = [];
    for (const name of names) {
      let family = families.get(name);
      let bucket = false;
      if (family === undefined) {
        const base = name.replace(/_(bucket|sum|count)$/, '');
        family = families.get(base);
        assert.ok(family !== undefined, `${name} (in ${query}) is exported`);
        assert.is(family.type, 'histogram', `${name}: ${base} is a histogram`);
        bucket = name.endsWith('_bucket');
        used.add(base);
      } else used.add(name);
      allowed.push(new Set([...family.labels, ...kScrapeLabels, ...(bucket ? ['le'] : [])]));
    }
    const labels = new Set<string>();
    for (const selector of query.matchAll(/\{([^}]*)\}/g)) for (const m of selector[1]!.matchAll(/(\w+)\s*(?:=~|!~|!=|=)\s*"/g)) labels.add(m[1]!);
    for (const clause of query.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g)) for (const l of clause[1]!.split(',')) labels.add(l.trim());
    for (const label of labels) {
      for (const set of allowed) assert.ok(set.has(label), `label ${label} in ${query} is one its metrics have (${[...set].join(', ')})`);
    }
  }
  // The dashboard covers what pipelock exports.
  for (const name of families.keys()) assert.ok(used.has(name), `the dashboard shows ${name}`);
});

test.run();
