import { encode, Recorder } from '../../tools/src/load/histogram.js';
import { hostLine } from '../../tools/src/load/host.js';
import { buildResult, OP_NAMES, type OpName, type RunResult } from '../../tools/src/load/result.js';

/** Synthetic results for report tests: latencies with a long tail, a steady per-second timeline. */
export interface RunShape {
  /** Latency scale, ms: p50 ≈ 1.41×, p99 = 10×, p99.9 ≈ 31.6× it. */
  readonly scaleMs?: number;
  /** Values recorded per operation. */
  readonly samples?: number;
  readonly throughput?: number;
  /** ± share each measured second swings around the throughput. */
  readonly jitter?: number;
  readonly seconds?: number;
  readonly flags?: Record<string, string | number | boolean | null | readonly string[]>;
  readonly interrupted?: boolean;
  /** Wall-clock start of the measured window, ms since the epoch. */
  readonly windowFrom?: number;
  readonly errors?: Record<string, number>;
  /** Points the workers flagged as warm-up (default: every warm-up second). */
  readonly warmupTicks?: number;
}

export const kFlags = Object.freeze({
  servers: [], masters: 5, workers: 2, concurrency: 16, rate: 0, durationMs: 10_000, warmupMs: 2_000, keys: 10_000,
  holdMs: 0, lockMs: 5_000, retryCount: 10, retryDelayMs: 200, retryJitterMs: 100, operation: 'acquire-release', json: null, html: null,
});

/** Latencies whose u-quantile is scale / √(1 − u): deterministic, heavy-tailed. */
function recorder(scaleMs: number, samples: number): Recorder {
  const r = new Recorder();
  for (let i = 0; i < samples; i++) r.recordMs(scaleMs / Math.sqrt(1 - (i + 0.5) / samples));
  return r;
}

export function syntheticRun(shape: RunShape = {}): RunResult {
  const { scaleMs = 1, samples = 20_000, throughput = 1000, jitter = 0.02, seconds = 10, interrupted = false } = shape;
  const flags = { ...kFlags, durationMs: seconds * 1000, ...shape.flags };
  const histograms = Object.fromEntries(OP_NAMES.map((op) => [op, encode(recorder(op === 'extend' ? 0 : scaleMs, op === 'extend' ? 0 : samples).histogram)])) as Record<OpName, string>;
  const warmup = flags.warmupMs / 1000;
  const totalErrors = Object.values(shape.errors ?? {}).reduce((a, b) => a + b, 0);
  const timeline = Array.from({ length: warmup + seconds + 1 }, (_, i) => ({
    second: i + 1,
    cycles: i === warmup + seconds ? 3 : Math.round(throughput * (1 + (i % 2 === 0 ? jitter : -jitter))),
    // Failures spread over the measured seconds, a few more in odd ones.
    errors: i < warmup ? 0 : Math.round((totalErrors / seconds) * (i % 2 === 0 ? 0.5 : 1.5)),
    warmup: i < (shape.warmupTicks ?? warmup),
  }));
  const from = shape.windowFrom ?? Date.UTC(2026, 0, 1);
  return buildResult([{
    worker: 0, cycles: Math.round(throughput * seconds), errors: shape.errors ?? {}, contendedAcquires: 0, lostAttempts: 0, clamped: 0, histograms,
    cpuUserMs: 1, cpuSystemMs: 1, elu: 0.5, measuredMs: seconds * 1000,
  }], {
    host: hostLine(['7.0.15'], flags, new Date(from - warmup * 1000)),
    interrupted,
    measuredSeconds: seconds,
    timeline,
    cpu: { userMs: 10, systemMs: 5, seconds, percentOfOneCore: 1.5 },
    window: { from, to: from + seconds * 1000 },
  });
}
