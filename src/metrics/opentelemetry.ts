import type * as OTelApi from '@opentelemetry/api';
import { InvalidArgumentError } from '../errors.js';
import { isObject } from '../util/checks.js';
import { CALL_BUCKETS, WAIT_BUCKETS } from './buckets.js';
import { Collector, OK, type MetricsSink } from './collector.js';
import { resolveResourceLabel, type ResourceLabel } from './labels.js';
import { loadPeer } from './peer.js';
import { OPENTELEMETRY_METRICS } from './names.js';
import type { MetricsHandle } from './prometheus.js';

/** The part of an OpenTelemetry Meter the adapter uses (structural: this package's types need no @opentelemetry/api). */
export interface OpenTelemetryMeter {
  /** Creates a histogram instrument. */
  createHistogram(name: string, options?: object): unknown;
  /** Creates a counter instrument. */
  createCounter(name: string, options?: object): unknown;
  /** Creates an observable up-down counter (the held-lock gauges). */
  createObservableUpDownCounter(name: string, options?: object): unknown;
  /** Registers the callback that observes the gauges. */
  addBatchObservableCallback(callback: never, observables: never[]): void;
  /** Removes it (on close()). */
  removeBatchObservableCallback(callback: never, observables: never[]): void;
}

/** Options of `openTelemetryMetrics()`. */
export interface OpenTelemetryMetricsOptions {
  /** The meter to record on. @default `metrics.getMeter('pipelock')` of @opentelemetry/api (the global MeterProvider) */
  readonly meter?: OpenTelemetryMeter;
  /** Adds a `pipelock.resource` attribute: as PrometheusMetricsOptions' resourceLabel (at most 100 values). @default false */
  readonly resourceLabel?: boolean | string | readonly string[] | ResourceLabel;
}

/** Records pipelock's events on OpenTelemetry instruments; needs `@opentelemetry/api` (loaded now) unless `meter` is given. */
export function openTelemetryMetrics(options: OpenTelemetryMetricsOptions = {}): MetricsHandle {
  if (!isObject(options)) throw new InvalidArgumentError('options', 'must be an object', options);
  const label = resolveResourceLabel(options.resourceLabel, 'options.resourceLabel');
  let meter = options.meter as OTelApi.Meter | undefined;
  if (meter === undefined)
    meter = (loadPeer('@opentelemetry/api', 'openTelemetryMetrics()') as typeof OTelApi).metrics.getMeter('pipelock');
  else if (typeof (meter as Partial<OTelApi.Meter> | null)?.createHistogram !== 'function')
    throw new InvalidArgumentError('options.meter', 'must be an OpenTelemetry Meter', options.meter);
  const sink = otelSink(otelInstruments(meter));
  const n = OPENTELEMETRY_METRICS;
  const waiting = meter.createObservableUpDownCounter(n.waiting,
    { unit: '{call}', description: 'acquire() calls in flight: waiting for their turn, an attempt or a retry' });
  const held = meter.createObservableUpDownCounter(n.held,
    { unit: '{lock}', description: 'Locks this process holds (acquired, not yet released, lost or expired)' });
  const autoExtended =
    meter.createObservableUpDownCounter(n.autoExtended, { unit: '{lock}', description: 'Held locks kept alive by the renewal scheduler' });
  const collector = new Collector(sink, label);
  const observe: OTelApi.BatchObservableCallback = (result) => {
    const counts = collector.held();
    if (label === undefined && counts.held.size === 0) result.observe(held, 0);
    if (label === undefined && counts.autoExtended.size === 0) result.observe(autoExtended, 0);
    for (const [resource, count] of counts.held)
      result.observe(held, count, resource === undefined ? {} : { 'pipelock.resource': resource });
    for (const [resource, count] of counts.autoExtended)
      result.observe(autoExtended, count, resource === undefined ? {} : { 'pipelock.resource': resource });
    const calls = collector.waiting();
    if (label === undefined && calls.size === 0) result.observe(waiting, 0);
    for (const [resource, count] of calls) result.observe(waiting, count, resource === undefined ? {} : { 'pipelock.resource': resource });
  };
  meter.addBatchObservableCallback(observe, [held, autoExtended, waiting]);
  return {
    close() {
      collector.close();
      meter.removeBatchObservableCallback(observe, [held, autoExtended, waiting]);
    },
  };
}

/** The counters and histograms on `meter`. */
function otelInstruments(meter: OTelApi.Meter) {
  const n = OPENTELEMETRY_METRICS;
  const wait = meter.createHistogram(n.lockWait,
    { unit: 's', description: 'Time from acquire() to the lock or the failure', advice: { explicitBucketBoundaries: [...WAIT_BUCKETS] } });
  const duration = meter.createHistogram(n.operationDuration,
    { unit: 's', description: 'Duration of extend() and release()', advice: { explicitBucketBoundaries: [...WAIT_BUCKETS] } });
  const operations = meter.createCounter(n.operations,
    { unit: '{operation}', description: 'acquire(), extend() and release() calls; failures carry error.type' });
  const retries =
    meter.createCounter(n.acquireRetries, { unit: '{attempt}', description: 'Acquire attempts lost and retried after a wait' });
  const renewals = meter.createCounter(n.renewals,
    { unit: '{renewal}', description: 'Renewals of auto-extended locks (pipelock.renewal.result renewed or failed)' });
  const lost = meter.createCounter(n.lost, { unit: '{lock}', description: 'Auto-extended locks lost' });
  const changes =
    meter.createCounter(n.capabilityChanges,
      { unit: '{change}',
        description: 'A master\'s commands changed (probe at connect, or fallback to scripts), with what its single-key extend and '
          + 'release send since' });
  const masterErrors =
    meter.createCounter(n.masterErrors, { unit: '{error}', description: 'Failures of one master (connection, script, reply)' });
  const masterCall = meter.createHistogram(n.masterCall, { unit: 's', description: 'Round trip of one coalesced script call to a master',
    advice: { explicitBucketBoundaries: [...CALL_BUCKETS] } });
  const contention = meter.createCounter(n.contention,
    { unit: '{attempt}', description: 'Acquire attempts refused because another holder had the lock, retried or final' });
  const hold =
    meter.createHistogram(n.hold, { unit: 's', description: 'How long locks were held, from acquisition to release (extensions included)',
      advice: { explicitBucketBoundaries: [...WAIT_BUCKETS] } });
  return { wait, duration, operations, retries, renewals, lost, changes, masterErrors, masterCall, contention, hold };
}

/** pipelock's events onto `instruments`, with the OpenTelemetry attributes (`error.type` on failures). */
function otelSink(instruments: ReturnType<typeof otelInstruments>): MetricsSink {
  const { wait, duration, operations, retries, renewals, lost } = instruments;
  const { changes, masterErrors, masterCall, contention, hold } = instruments;
  const attributes = (base: OTelApi.Attributes, code: string, resource: string | undefined): OTelApi.Attributes => {
    if (code !== OK) base['error.type'] = code;
    if (resource !== undefined) base['pipelock.resource'] = resource;
    return base;
  };
  return {
    operation(operation, code, seconds, resource) {
      operations.add(1, attributes({ 'pipelock.operation': operation }, code, resource));
      if (operation === 'acquire') wait.record(seconds, attributes({}, code, resource));
      else duration.record(seconds, attributes({ 'pipelock.operation': operation }, code, resource));
    },
    acquireRetry(resource) {
      retries.add(1, attributes({}, OK, resource));
    },
    contention(resource) {
      contention.add(1, attributes({}, OK, resource));
    },
    hold(seconds, resource) {
      hold.record(seconds, attributes({}, OK, resource));
    },
    renewal(renewed) {
      renewals.add(1, { 'pipelock.renewal.result': renewed ? 'renewed' : 'failed' });
    },
    lockLost(code, resource) {
      lost.add(1, attributes({}, code, resource));
    },
    masterError(master, code) {
      masterErrors.add(1, { 'pipelock.master': master, 'error.type': code });
    },
    masterCall(master, seconds, failed) {
      masterCall.record(seconds, failed ? { 'pipelock.master': master, 'error.type': 'error' } : { 'pipelock.master': master });
    },
    capability(master, reason, extend, release) {
      changes.add(1,
        { 'pipelock.master': master, 'pipelock.capability.reason': reason, 'pipelock.extend': extend, 'pipelock.release': release });
    },
  };
}
