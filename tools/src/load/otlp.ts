/** `--otlp URL`: the run's metrics, each second, to an OTLP/HTTP collector through OpenTelemetry's own SDK and exporter. */
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import type { Histogram } from './histogram.js';
import type { LiveSample } from './live-totals.js';
import { OP_NAMES, type OpName } from './result.js';

/** Latency bucket bounds, µs: about three per decade from 100 µs to 10 s, for a Prometheus/Grafana heatmap. */
/** hdr-histogram-js's JS histograms (createHistogram builds no other) walk their recorded values with this. */
interface Walkable {
  readonly recordedValuesIterator: {
    reset(): void;
    hasNext(): boolean;
    next(): { readonly valueIteratedTo: number; readonly countAtValueIteratedTo: number };
  };
}

const kBoundsUs =
  [100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000, 2_000_000, 5_000_000, 10_000_000];

export class OtlpExport {
  readonly #provider: MeterProvider;
  readonly #cycles;
  readonly #errors;
  readonly #late;
  readonly #latency;

  constructor(url: string, exportIntervalMs = 1_000) {
    const reader = new PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter({ url }), exportIntervalMillis: exportIntervalMs });
    this.#provider = new MeterProvider({ readers: [reader] });
    const meter = this.#provider.getMeter('pipelock-loadtest');
    this.#cycles =
      meter.createCounter('pipelock.loadtest.cycles', { description: 'completed lock cycles (warm-up included, phase attribute)' });
    this.#errors = meter.createCounter('pipelock.loadtest.errors', { description: 'failed lock cycles by error code' });
    this.#late =
      meter.createCounter('pipelock.loadtest.late_starts', { description: 'open loop: cycles started over 10 ms behind the schedule' });
    this.#latency = meter.createHistogram('pipelock.loadtest.latency',
      { unit: 'us', description: 'latency by operation', advice: { explicitBucketBoundaries: kBoundsUs } });
  }

  /** Adds one second (every worker's) to the instruments; the reader exports them on its own period. */
  onSecond(sample: LiveSample, histograms: Readonly<Record<OpName, Histogram>>): void {
    const phase = { phase: sample.warmup ? 'warmup' : 'measure' };
    this.#cycles.add(sample.cycles, phase);
    for (const [code, n] of Object.entries(sample.errorCodes)) this.#errors.add(n, { ...phase, code });
    if (sample.lateStarts > 0) this.#late.add(sample.lateStarts, phase);
    for (const op of OP_NAMES) {
      // Each recorded value once per count: the HDR histogram's buckets replayed into OpenTelemetry's.
      const values = (histograms[op] as unknown as Walkable).recordedValuesIterator;
      values.reset();
      const attributes = { ...phase, operation: op };
      while (values.hasNext()) {
        const v = values.next();
        for (let i = 0; i < v.countAtValueIteratedTo; i++) this.#latency.record(v.valueIteratedTo, attributes);
      }
    }
  }

  /** Exports what is left and stops; an unreachable collector is reported, not thrown. */
  async close(): Promise<void> {
    try {
      await this.#provider.forceFlush();
    } finally {
      await this.#provider.shutdown();
    }
  }
}
