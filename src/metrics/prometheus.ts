import type * as PromClient from 'prom-client';
import { InvalidArgumentError } from '../errors.js';
import { isObject } from '../util/checks.js';
import { CALL_BUCKETS, WAIT_BUCKETS } from './buckets.js';
import { Collector, type MetricsSink } from './collector.js';
import { resolveResourceLabel, type ResourceLabel } from './labels.js';
import { loadPeer } from './peer.js';
import { PROMETHEUS_METRICS } from './names.js';

/** The part of a prom-client Registry the adapter uses (structural, so that the types of this package need no prom-client). */
export interface PrometheusRegistry {
  /** Registers one metric. */
  registerMetric(metric: never): void;
  /** Removes one metric by name (on close()). */
  removeSingleMetric(name: string): void;
}

export interface PrometheusMetricsOptions {
  /** Where the metrics are registered. @default prom-client's global `register` */
  readonly registry?: PrometheusRegistry;
  /**
   * Adds a `resource` label: templates of your resource names (`'orders:*'`, or a list; `*` is one
   * `:` segment or part of one; the matching template is the value, `other` when none matches), a
   * function mapping the resources to a value, or `true` (the resources joined by ','). At most 100
   * distinct values, the rest `other`: every value is a time series of every labelled metric. @default false
   */
  readonly resourceLabel?: boolean | string | readonly string[] | ResourceLabel;
}

/** What the adapters return: stop listening and unregister. */
export interface MetricsHandle {
  /** Stops listening to pipelock's events and unregisters the metrics. */
  close(): void;
}

/**
 * Exports pipelock's events as prom-client metrics (names and units after the Prometheus naming
 * guide: base unit seconds, `_total` counters). Needs `prom-client` installed; it is loaded now,
 * not when `pipelock/metrics` is imported.
 */
export function prometheusMetrics(options: PrometheusMetricsOptions = {}): MetricsHandle {
  if (!isObject(options)) throw new InvalidArgumentError('options', 'must be an object', options);
  const label = resolveResourceLabel(options.resourceLabel, 'options.resourceLabel');
  const prom = loadPeer('prom-client', 'prometheusMetrics()') as typeof PromClient;
  const registry = (options.registry ?? prom.register) as PromClient.Registry;
  if (typeof (registry as Partial<PromClient.Registry> | null)?.registerMetric !== 'function') {
    throw new InvalidArgumentError('options.registry', 'must be a prom-client Registry', options.registry);
  }
  const r: Labels = label === undefined ? [] : ['resource'];
  const sink = promSink(promInstruments(prom, [registry], r));
  let collector: Collector | undefined;
  const gauge = (name: string, help: string, pick: 'held' | 'autoExtended' | 'waiting'): PromClient.Gauge => new prom.Gauge({
    name, help, labelNames: [...r], registers: [registry],
    collect() {
      this.reset();
      if (collector === undefined) return;
      const counts = pick === 'waiting' ? collector.waiting() : collector.held()[pick];
      // With no lock held the unlabelled gauge still reads 0 rather than vanishing.
      if (label === undefined && counts.size === 0) this.set(0);
      for (const [resource, n] of counts) {
        if (resource === undefined) this.set(n);
        else this.set({ resource }, n);
      }
    },
  });
  const m = PROMETHEUS_METRICS;
  gauge(m.held, 'Locks this process holds (acquired, not yet released, lost or expired)', 'held');
  gauge(m.autoExtended, 'Held locks kept alive by the renewal scheduler (autoExtend, using())', 'autoExtended');
  gauge(m.waiting, 'acquire() calls in flight: waiting for their turn, an attempt or a retry', 'waiting');

  collector = new Collector(sink, label);
  return {
    close() {
      collector?.close();
      collector = undefined;
      for (const name of Object.values(m)) registry.removeSingleMetric(name);
    },
  };
}

type Labels = readonly string[];

/** The counters and histograms, registered on `registers`; `r`: the resource label, when asked for. */
function promInstruments(prom: typeof PromClient, registers: PromClient.Registry[], r: Labels) {
  const m = PROMETHEUS_METRICS;
  const wait = new prom.Histogram({
    name: m.lockWait, help: 'Time from acquire() to the lock or the failure, in seconds, by outcome code (OK or the error code)',
    labelNames: ['code', ...r], buckets: [...WAIT_BUCKETS], registers,
  });
  const duration = new prom.Histogram({
    name: m.operationDuration, help: 'Duration of extend() and release(), in seconds, by operation and outcome code',
    labelNames: ['operation', 'code', ...r], buckets: [...WAIT_BUCKETS], registers,
  });
  const operations =
    new prom.Counter({ name: m.operations, help: 'acquire(), extend() and release() calls by outcome code (OK or the error code)',
      labelNames: ['operation', 'code', ...r], registers });
  const retries =
    new prom.Counter({ name: m.acquireRetries, help: 'Acquire attempts lost and retried after a wait', labelNames: [...r], registers });
  const renewals =
    new prom.Counter({ name: m.renewals,
      help: 'Renewals of auto-extended locks by result (renewed, failed: retried until the lock is lost)',
        labelNames: ['result'], registers });
  const lost = new prom.Counter({ name: m.lost, help: 'Auto-extended locks lost, by error code', labelNames: ['code', ...r], registers });
  const changes =
    new prom.Counter({ name: m.capabilityChanges,
      help: 'A master\'s commands changed: its probe at connect answered, or a native command failed and it fell back to scripts (reason), '
        + 'with what its single-key extend and release send since', labelNames: ['master', 'reason', 'extend', 'release'], registers });
  const scriptFree =
    new prom.Gauge({ name: m.scriptFree,
      help: 'Whether a master\'s single-key extend and release run without scripts now (SET IFEQ, DELIFEQ or DELEX): 1, or 0 '
        + 'for Lua scripts', labelNames: ['master', 'operation'], registers });
  const masterErrors = new prom.Counter({ name: m.masterErrors,
    help: 'Failures of one master (connection, script, reply), by master and error code', labelNames: ['master', 'code'], registers });
  const masterCall = new prom.Histogram({
    name: m.masterCall, help: 'Round trip of one coalesced script call to a master, in seconds',
    labelNames: ['master', 'result'], buckets: [...CALL_BUCKETS], registers,
  });
  const contention = new prom.Counter({ name: m.contention,
    help: 'Acquire attempts refused because another holder had the lock, retried or final', labelNames: [...r], registers });
  const hold =
    new prom.Histogram({ name: m.hold, help: 'How long locks were held, from acquisition to release (extensions included), in seconds',
      labelNames: [...r], buckets: [...WAIT_BUCKETS], registers });
  return { wait, duration, operations, retries, renewals, lost, changes, scriptFree, masterErrors, masterCall, contention, hold };
}

/** pipelock's events onto `instruments`. */
function promSink(instruments: ReturnType<typeof promInstruments>): MetricsSink {
  const { wait, duration, operations, retries, renewals, lost, changes, scriptFree } = instruments;
  const { masterErrors, masterCall, contention, hold } = instruments;
  const withResource = (labels: Record<string, string>, resource: string | undefined): Record<string, string> => {
    if (resource !== undefined) labels.resource = resource;
    return labels;
  };
  return {
    operation(operation, code, seconds, resource) {
      operations.inc(withResource({ operation, code }, resource));
      if (operation === 'acquire') wait.observe(withResource({ code }, resource), seconds);
      else duration.observe(withResource({ operation, code }, resource), seconds);
    },
    acquireRetry(resource) {
      retries.inc(withResource({}, resource));
    },
    contention(resource) {
      contention.inc(withResource({}, resource));
    },
    hold(seconds, resource) {
      hold.observe(withResource({}, resource), seconds);
    },
    renewal(renewed) {
      renewals.inc({ result: renewed ? 'renewed' : 'failed' });
    },
    lockLost(code, resource) {
      lost.inc(withResource({ code }, resource));
    },
    masterError(master, code) {
      masterErrors.inc({ master, code });
    },
    masterCall(master, seconds, failed) {
      masterCall.observe({ master, result: failed ? 'error' : 'ok' }, seconds);
    },
    capability(master, reason, extend, release) {
      changes.inc({ master, reason, extend, release });
      scriptFree.set({ master, operation: 'extend' }, extend === 'SET IFEQ' ? 1 : 0);
      scriptFree.set({ master, operation: 'release' }, release === 'DELIFEQ' || release === 'DELEX' ? 1 : 0);
    },
  };
}
