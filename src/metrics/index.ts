/** `pipelock/metrics`: pipelock's diagnostics_channel events as Prometheus or OpenTelemetry metrics. */
export { prometheusMetrics, type PrometheusMetricsOptions, type PrometheusRegistry,
  type MetricsHandle } from './prometheus.js';
export { openTelemetryMetrics, type OpenTelemetryMetricsOptions, type OpenTelemetryMeter } from './opentelemetry.js';
export { WAIT_BUCKETS, CALL_BUCKETS } from './buckets.js';
export { kMaxResourceLabels, OTHER_RESOURCE, type ResourceLabel } from './labels.js';
export {
  ACQUIRE_RETRY_CHANNEL, NODE_CALL_CHANNEL, NODE_ERROR_CHANNEL, LOCK_LOST_CHANNEL, ACQUIRE_CHANNEL, EXTEND_CHANNEL,
    RELEASE_CHANNEL, RENEWAL_CHANNEL,
  type AcquireRetryMessage, type NodeCallMessage, type NodeErrorMessage, type LockLostMessage,
} from '../engine/channels.js';
export type { OperationContext, RenewalMessage } from './collector.js';
export { PROMETHEUS_METRICS, OPENTELEMETRY_METRICS, type MetricNames, type PrometheusMetricNames } from './names.js';
