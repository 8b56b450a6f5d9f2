/** The metrics pipelock records, by what each measures; each adapter names them its way (PROMETHEUS_METRICS, OPENTELEMETRY_METRICS). */
export interface MetricNames {
  /** Histogram: acquire() to the lock or the failure, by outcome code. */
  readonly lockWait: string;
  /** Histogram: duration of extend() and release(). */
  readonly operationDuration: string;
  /** Counter: acquire(), extend() and release() calls by outcome code. */
  readonly operations: string;
  /** Counter: lost attempts retried. */
  readonly acquireRetries: string;
  /** Counter: attempts refused because another holder had the lock (retried or final). */
  readonly contention: string;
  /** Gauge: acquire() calls in flight (waiting for a turn, an attempt or a retry). */
  readonly waiting: string;
  /** Histogram: how long locks were held, acquisition to release (extensions included). */
  readonly hold: string;
  /** Gauge: locks this process holds. */
  readonly held: string;
  /** Gauge: held locks kept alive by the renewal scheduler. */
  readonly autoExtended: string;
  /** Counter: renewals of auto-extended locks, renewed or failed. */
  readonly renewals: string;
  /** Counter: auto-extended locks lost. */
  readonly lost: string;
  /** Counter: failures of one master, by master and code. */
  readonly masterErrors: string;
  /** Histogram: round trip of one coalesced call to a master. */
  readonly masterCall: string;
  /** Counter: changes of a master's commands (probe or fallback). */
  readonly capabilityChanges: string;
}

/** Prometheus has one more: the masters' script-free state (an OpenTelemetry gauge of it is not written yet). */
export interface PrometheusMetricNames extends MetricNames {
  /** Gauge: whether a master's single-key extend and release run script-free (1) or as scripts (0). */
  readonly scriptFree: string;
}

/** Each metric's Prometheus name, then its OpenTelemetry instrument's (none: not recorded there). */
const kNames: Readonly<Record<keyof PrometheusMetricNames, readonly [string, string | undefined]>> = {
  lockWait: ['pipelock_lock_wait_seconds', 'pipelock.lock.wait.duration'],
  operationDuration: ['pipelock_operation_duration_seconds', 'pipelock.operation.duration'],
  operations: ['pipelock_operations_total', 'pipelock.operations'],
  acquireRetries: ['pipelock_acquire_retries_total', 'pipelock.acquire.retries'],
  contention: ['pipelock_contention_total', 'pipelock.lock.contention'],
  waiting: ['pipelock_waiting_callers', 'pipelock.lock.waiting'],
  hold: ['pipelock_lock_hold_seconds', 'pipelock.lock.hold.duration'],
  held: ['pipelock_held_locks', 'pipelock.lock.held'],
  autoExtended: ['pipelock_auto_extended_locks', 'pipelock.lock.auto_extended'],
  renewals: ['pipelock_renewals_total', 'pipelock.renewals'],
  lost: ['pipelock_locks_lost_total', 'pipelock.lock.lost'],
  masterErrors: ['pipelock_master_errors_total', 'pipelock.master.errors'],
  masterCall: ['pipelock_master_call_duration_seconds', 'pipelock.master.call.duration'],
  capabilityChanges: ['pipelock_master_capability_changes_total', 'pipelock.master.capability.changes'],
  scriptFree: ['pipelock_master_script_free', undefined],
};

/** The metric names, for dashboards (docs/dashboard/pipelock.json) and docs/operating.md. */
export const PROMETHEUS_METRICS: Readonly<PrometheusMetricNames> =
  Object.freeze(Object.fromEntries(Object.entries(kNames).map(([key, [name]]) => [key, name])) as unknown as PrometheusMetricNames);

/** The instrument names, after the OpenTelemetry semantic conventions (dotted, unit in `unit`, `error.type` on failures). */
export const OPENTELEMETRY_METRICS: Readonly<MetricNames> = Object.freeze(Object.fromEntries(Object.entries(kNames)
  .flatMap(([key, [, name]]) => (name === undefined ? [] : [[key, name]]))) as unknown as MetricNames);
