/**
 * docs/dashboard/pipelock.json, a Grafana dashboard over the Prometheus metrics of
 * `pipelock/metrics`, built here against Grafana's published dashboard types (`@grafana/schema`), so
 * that tsc checks the shape Grafana imports, and from the exporter's metric names
 * (PROMETHEUS_METRICS), so that a renamed metric renames its queries. `npm run docs:dashboard`
 * writes it; test/unit/docs.test.ts fails when the file is stale, and
 * test/integration/grafana-dashboard.test.ts checks every metric and label its queries name against
 * a registry filled by a short run.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DashboardCursorSync, VariableRefresh, VariableSort, type Dashboard, type Panel, type RowPanel,
  type VariableModel } from '@grafana/schema';
import { PROMETHEUS_METRICS as M } from '../../src/metrics/names.js';
import { repoRoot } from './tsdoc.js';

export const kDashboardFile = join(repoRoot, 'docs', 'dashboard', 'pipelock.json');

/** A Prometheus panel query: Grafana's DataQuery (refId, datasource) plus the data source's own fields. */
type PrometheusQuery = { refId: string; datasource: typeof datasource; expr: string; legendFormat: string };

const datasource = { type: 'prometheus', uid: '$' + '{datasource}' };
/** The scrape's own labels, chosen by the dashboard's variables. */
const sel = 'job=~"$job", instance=~"$instance"';
const rate =
  (metric: string, matchers = ''): string => `rate(${metric}{${sel}${matchers === '' ? '' : `, ${matchers}`}}[$__rate_interval])`;
const quantile = (q: number, histogram: string, by: string[], matchers = ''): string =>
  `histogram_quantile(${q}, sum by (${['le', ...by].join(', ')}) (${rate(`${histogram}_bucket`, matchers)}))`;

let nextId = 1;
let y = 0;

function row(title: string): RowPanel {
  const panel: RowPanel = { type: 'row', id: nextId++, title, collapsed: false, gridPos: { x: 0, y, w: 24, h: 1 }, panels: [] };
  y += 1;
  return panel;
}

/** A time series panel of `width` columns at `x` on the current row band (8 rows high). */
function series(title: string, description: string, unit: string, targets: readonly (readonly [expr: string, legend: string])[], x: number,
  width: number, kind: 'timeseries' | 'stat' = 'timeseries'): Panel {
  const queries: PrometheusQuery[] =
    targets.map(([expr, legendFormat], i) => ({ refId: String.fromCharCode(65 + i), datasource, expr, legendFormat }));
  return {
    type: kind,
    id: nextId++,
    title,
    description,
    datasource,
    gridPos: { x, y, w: width, h: 8 },
    fieldConfig: { defaults: { unit }, overrides: [] },
    options: kind === 'stat'
      ? { reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false }, colorMode: 'value', graphMode: 'area' }
      : { legend: { displayMode: 'list', placement: 'bottom', showLegend: true }, tooltip: { mode: 'multi', sort: 'desc' } },
    targets: queries,
  };
}

/** Three panels side by side, then the next band. */
function band(...panels: Panel[]): Panel[] {
  y += 8;
  return panels;
}

function variable(name: string, label: string, query: string): VariableModel {
  return {
    type: 'query', name, label, datasource, query: { query, refId: name },
    refresh: VariableRefresh.onTimeRangeChanged, includeAll: true, multi: true, allValue: '.*',
      current: { selected: true, text: ['All'], value: ['$__all'] },
    sort: VariableSort.alphabeticalAsc,
  };
}

export function buildDashboard(): Dashboard {
  nextId = 1;
  y = 0;
  const acquire = 'operation="acquire"';
  const panels: (Panel | RowPanel)[] = [
    row('Acquisitions'),
    ...band(
      series('Acquisitions per second by outcome',
        'acquire() calls finished per second, by outcome code: OK or the error code (ERR_PIPELOCK_RESOURCE_LOCKED: held elsewhere; '
          + 'ERR_PIPELOCK_QUORUM_UNREACHABLE: too many masters failed); and lost attempts retried per second.', 'reqps',
        [[`sum by (code) (${rate(M.operations, acquire)})`, '{{code}}'], [`sum(${rate(M.acquireRetries)})`, 'retries']], 0, 8),
      series('Acquire latency', 'Time from acquire() to the lock, successful acquisitions (waits and retries included).', 's',
        [[quantile(0.5, M.lockWait, [], 'code="OK"'), 'p50'], [quantile(0.99, M.lockWait, [], 'code="OK"'), 'p99'],
          [quantile(0.999, M.lockWait, [], 'code="OK"'), 'p99.9']], 8, 8),
      series('Acquisitions refused or failed', 'Share of acquire() calls that ended without the lock.', 'percentunit',
        [[`sum(${rate(M.operations, `${acquire}, code!="OK"`)}) / sum(${rate(M.operations, acquire)})`, 'not acquired']], 16, 8),
    ),
    ...band(
      series('Waiting time by outcome (p99)',
        'p99 of the time acquire() waited, per outcome code: a failed acquisition waits its whole retry schedule. The textbook alert: p99 '
          + 'over 1 s for 5 minutes.', 's',
        [[quantile(0.99, M.lockWait, ['code']), '{{code}}']], 0, 12),
      series('Mean wait', 'Mean time from acquire() to the lock or the failure.', 's',
        [[`sum(${rate(`${M.lockWait}_sum`)}) / sum(${rate(`${M.lockWait}_count`)})`, 'mean']], 12, 12),
    ),
    row('Contention'),
    ...band(
      series('Waiting callers',
        'acquire() calls in flight (waiting for their turn, an attempt or a retry), per instance. With resourceLabel set, sum by '
          + '(resource) splits it by resource template.', 'short',
        [[`sum by (instance) (${M.waiting}{${sel}})`, '{{instance}}']], 0, 8),
      series('Refused attempts per second',
        'Attempts refused because another holder had the lock, retried or final (with resourceLabel set, sum by (resource) splits it).',
          'reqps',
        [[`sum(${rate(M.contention)})`, 'refused']], 8, 8),
      series('Hold time (p50, p99)', 'How long locks were held, acquisition to release (extensions included).', 's',
        [[quantile(0.5, M.hold, []), 'p50'], [quantile(0.99, M.hold, []), 'p99']], 16, 8),
    ),
    row('Held locks and renewals'),
    ...band(
      series('Locks held',
        'Locks this process holds, and of them the ones the renewal scheduler keeps alive (autoExtend, using()).', 'short',
        [[`sum by (instance) (${M.held}{${sel}})`, 'held {{instance}}'],
          [`sum by (instance) (${M.autoExtended}{${sel}})`, 'auto-extended {{instance}}']], 0, 8),
      series('Renewals per second', 'Renewals of auto-extended locks: renewed, or failed (retried until the lock is lost).', 'reqps',
        [[`sum by (result) (${rate(M.renewals)})`, '{{result}}']], 8, 8),
      series('Locks lost', 'Auto-extended locks lost (their signal aborted), by error code, per interval: any is worth a look.', 'short',
        [[`sum by (code) (increase(${M.lost}{${sel}}[$__rate_interval]))`, '{{code}}']], 16, 8),
    ),
    row('Extend and release'),
    ...band(
      series('Extend and release latency (p99)', 'p99 duration of extend() and release() by operation.', 's',
        [[quantile(0.99, M.operationDuration, ['operation']), '{{operation}}']], 0, 12),
      series('Operations per second', 'extend() and release() calls by operation and outcome code.', 'reqps',
        [[`sum by (operation, code) (${rate(M.operations, 'operation!="acquire"')})`, '{{operation}} {{code}}']], 12, 12),
    ),
    row('Masters'),
    ...band(
      series('Master errors per second',
        'Failures of one master by code: connection errors, NOSCRIPT, ERR_PIPELOCK_NODE_TIMEOUT (no answer within nodeTimeout), '
          + 'ERR_PIPELOCK_NODE_STALLED (known stalled: only probes are sent).', 'reqps',
        [[`sum by (master, code) (${rate(M.masterErrors)})`, '{{master}} {{code}}']], 0, 8),
      series('Script-call round trip per master (p99)',
        'p99 round trip of one coalesced script call to each master: a stalling master stands out here first.', 's',
        [[quantile(0.99, M.masterCall, ['master']), '{{master}}']], 8, 8),
      series('Calls per second per master',
        'Coalesced calls answered per master, by result: a master whose calls stop while others go on is stalled or down.', 'reqps',
        [[`sum by (master, result) (${rate(`${M.masterCall}_count`)})`, '{{master}} {{result}}']], 16, 8),
    ),
    ...band(
      series('Script-free operations per master',
        '1 where a master runs single-key extends and releases as native commands (SET IFEQ, DELIFEQ, DELEX), 0 where it runs Lua scripts.',
          'short',
        [[`max by (master, operation) (${M.scriptFree}{${sel}})`, '{{master}} {{operation}}']], 0, 12),
      series('Capability changes',
        "Changes of a master's commands: its probe at connect, or a fallback after a native command failed.", 'short',
        [[`sum by (master, reason) (increase(${M.capabilityChanges}{${sel}}[$__rate_interval]))`, '{{master}} {{reason}}']], 12, 12),
    ),
  ];
  return {
    title: 'pipelock',
    uid: 'pipelock',
    description: 'Redlock locks taken by pipelock: acquisitions and their outcomes, latency, waiting, held and lost locks, renewals, and '
      + 'each master\'s errors and round trips (metrics of pipelock/metrics prometheusMetrics()).',
    tags: ['pipelock', 'redis', 'locks'],
    editable: true,
    graphTooltip: DashboardCursorSync.Crosshair,
    schemaVersion: 39,
    version: 1,
    refresh: '30s',
    time: { from: 'now-1h', to: 'now' },
    timezone: 'browser',
    annotations: { list: [] },
    links: [],
    templating: {
      list: [
        { type: 'datasource', name: 'datasource', label: 'Prometheus', query: 'prometheus', current: { text: '', value: '' },
          refresh: VariableRefresh.onDashboardLoad, includeAll: false, multi: false },
        variable('job', 'job', `label_values(${M.operations}, job)`),
        variable('instance', 'instance', `label_values(${M.operations}{job=~"$job"}, instance)`),
      ],
    },
    panels,
  };
}

export function renderDashboard(): string {
  return `${JSON.stringify(buildDashboard(), null, 2)}\n`;
}

/** Every query of the dashboard (panel targets and variable queries). */
export function dashboardQueries(dashboard: Dashboard): string[] {
  const out: string[] = [];
  const visit = (panels: readonly (Panel | RowPanel)[] | undefined): void => {
    for (const panel of panels ?? []) {
      if ('panels' in panel) visit(panel.panels);
      for (const target of (panel as Panel).targets ?? []) if (typeof target.expr === 'string') out.push(target.expr);
    }
  };
  visit(dashboard.panels);
  for (const v of dashboard.templating?.list ?? []) {
    const query = v.query;
    if (v.type === 'query' && typeof query === 'object' && typeof query.query === 'string') out.push(query.query);
  }
  return out;
}

export function committedDashboard(): string {
  return readFileSync(kDashboardFile, 'utf8');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  writeFileSync(kDashboardFile, renderDashboard());
  console.log(`wrote ${kDashboardFile}`);
}
