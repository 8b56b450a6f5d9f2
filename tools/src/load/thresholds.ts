/**
 * Pass/fail rules a run is judged by while it runs and at its end, as k6's thresholds are:
 * `acquire.p99<2ms`, `errors.rate<0.1%`, `cycles.rate>20000`, `late.rate<1%`.
 */
import { decode, type Histogram } from './histogram.js';
import { OP_NAMES, type OpName, type RunResult, type ThresholdVerdict } from './result.js';

/** A rule's text is not one this file reads: the caller names the flag or the field it came from. */
export class ThresholdSyntaxError extends Error {
  override readonly name = 'ThresholdSyntaxError';
  readonly code = 'ERR_PIPELOCK_THRESHOLD';
  readonly rule: string;

  constructor(rule: string, why: string) {
    super(`${JSON.stringify(rule)} ${why}`);
    this.rule = rule;
  }
}

type Compare = '<' | '<=' | '>' | '>=';
type Counter = 'errors' | 'cycles' | 'late';

export interface Threshold {
  /** As written (whitespace removed). */
  readonly rule: string;
  /** `acquire.p99`, `errors.rate`, … */
  readonly metric: string;
  readonly compare: Compare;
  /** In the metric's own unit: µs for latencies, cycles/s for cycles.rate, a fraction for the other rates, a count for .count. */
  readonly limit: number;
  /** Added by the run, not the user: errors must not exceed cycles. */
  readonly implicit?: true;
}

/** What a threshold is judged on: the measured window so far, or all of it. */
export interface Measured {
  readonly cycles: number;
  readonly errors: number;
  readonly seconds: number;
  /** Open loop only: cycles due in the window, and those the generator started late (or never). */
  readonly due?: number;
  readonly lateStarts?: number;
  readonly histograms: Readonly<Record<OpName, Histogram>>;
}

export type Verdict = ThresholdVerdict;

const kTimeUnits: Readonly<Record<string, number>> = { us: 1, µs: 1, ms: 1000, s: 1_000_000 };
const kRule = /^([a-z]+)\.(p\d+(?:\.\d+)?|max|mean|min|rate|count)(<=|>=|<|>)(\d+(?:\.\d+)?)(us|µs|ms|s|%)?$/;

/** The rule every run carries unless the user judges errors themselves: a run whose errors exceed its cycles fails. */
export const kErrorsRule: Threshold =
  Object.freeze({ rule: 'errors.rate<=50%', metric: 'errors.rate', compare: '<=', limit: 0.5, implicit: true });

/** Parses one rule; throws ThresholdSyntaxError saying what it expected. */
export function parseThreshold(text: string): Threshold {
  const rule = text.replace(/\s+/g, '');
  const match = kRule.exec(rule);
  if (match === null) {
    throw new ThresholdSyntaxError(text,
      'is not a threshold: METRIC.STAT<VALUE, e.g. acquire.p99<2ms, errors.rate<0.1%, cycles.rate>20000, late.rate<1% ' +
      '(operators <, <=, >, >=)');
  }
  const [, subject, stat, compare, number, unit] = match as unknown as [string, string, string, Compare, string, string | undefined];
  const value = Number(number);
  if ((OP_NAMES as readonly string[]).includes(subject)) {
    if (stat === 'rate' || stat === 'count')
      throw new ThresholdSyntaxError(text, `judges a latency: ${subject} takes p50, p99, p99.9, max, min or mean`);
    const p = stat.startsWith('p') ? Number(stat.slice(1)) : 0;
    if (p > 100) throw new ThresholdSyntaxError(text, 'names a percentile above 100');
    if (unit === '%') throw new ThresholdSyntaxError(text, 'gives a latency in %: use us, ms or s (a bare number is ms, as in k6)');
    return { rule, metric: `${subject}.${stat}`, compare, limit: value * kTimeUnits[unit ?? 'ms']! };
  }
  if (subject !== 'errors' && subject !== 'cycles' && subject !== 'late') {
    throw new ThresholdSyntaxError(text, `names no metric: use ${OP_NAMES.join(', ')} (latencies), errors, cycles or late`);
  }
  if (stat !== 'rate' && stat !== 'count') throw new ThresholdSyntaxError(text, `takes .rate or .count after ${subject}`);
  if (unit !== undefined && unit !== '%')
    throw new ThresholdSyntaxError(text, `takes no time unit: ${subject}.${stat} is ${describe(subject, stat)}`);
  if (unit === '%' && (stat === 'count' || subject === 'cycles'))
    throw new ThresholdSyntaxError(text, `takes no %: ${subject}.${stat} is ${describe(subject, stat)}`);
  const limit = unit === '%' ? value / 100 : value;
  if (stat === 'rate' && subject !== 'cycles' && limit > 1) throw new ThresholdSyntaxError(text, 'is a share above 100%');
  return { rule, metric: `${subject}.${stat}`, compare, limit };
}

function describe(subject: Counter, stat: 'rate' | 'count'): string {
  if (stat === 'count') return 'a count';
  return subject === 'cycles' ? 'cycles per second' : `a share (0.001 or 0.1%) of ${subject === 'errors' ? 'failed cycles' : 'starts due'}`;
}

/** The rules a run is judged by: the user's, and kErrorsRule unless they gave an errors rule of their own. */
export function withDefaults(rules: readonly Threshold[]): readonly Threshold[] {
  return rules.some((r) => r.metric.startsWith('errors.')) ? rules : [...rules, kErrorsRule];
}

/** The value of a rule's metric over `measured`; null when there is nothing to judge (no latency recorded, no start due). */
export function valueOf(metric: string, measured: Measured): number | null {
  const [subject, stat] = metric.split('.') as [string, string];
  switch (metric) {
    case 'errors.rate':
      return measured.cycles + measured.errors === 0 ? null : measured.errors / (measured.cycles + measured.errors);
    case 'errors.count':
      return measured.errors;
    case 'cycles.rate':
      return measured.seconds > 0 ? measured.cycles / measured.seconds : null;
    case 'cycles.count':
      return measured.cycles;
    case 'late.rate':
      return measured.due === undefined || measured.due === 0 ? null : (measured.lateStarts ?? 0) / measured.due;
    case 'late.count':
      return measured.lateStarts ?? null;
  }
  const histogram = measured.histograms[subject as OpName];
  if (histogram.totalCount === 0) return null;
  if (stat === 'mean') return Math.round(histogram.mean);
  if (stat === 'min') return histogram.minNonZeroValue;
  return histogram.getValueAtPercentile(stat === 'max' ? 100 : Number(stat.slice(1)));
}

/** Judges every rule; a rule with nothing to judge fails (a rule that cannot be checked must not pass unseen). */
export function judge(rules: readonly Threshold[], measured: Measured): Verdict[] {
  return rules.map((t) => {
    const value = valueOf(t.metric, measured);
    const ok = value !== null && holds(value, t.compare, t.limit);
    return { rule: t.rule, ok, value, ...(t.implicit === true ? { implicit: true as const } : {}) };
  });
}

function holds(value: number, compare: Compare, limit: number): boolean {
  switch (compare) {
    case '<':
      return value < limit;
    case '<=':
      return value <= limit;
    case '>':
      return value > limit;
    case '>=':
      return value >= limit;
  }
}

/** A verdict's value as its rule writes it: `1.23ms`, `0.05%`, `20123/s`, `17`; `no data` when null. */
export function formatValue(verdict: Verdict): string {
  if (verdict.value === null) return 'no data';
  const metric = verdict.rule.split(/[<>]/)[0]!;
  const v = verdict.value;
  if (metric.endsWith('.count')) return String(v);
  if (metric === 'cycles.rate') return `${v.toFixed(1)}/s`;
  if (metric.endsWith('.rate')) return `${(100 * v).toPrecision(3)}%`;
  return v >= 1000 ? `${(v / 1000).toFixed(2)}ms` : `${v}µs`;
}

const kUnconfirmedRelease = 'ERR_LOAD_RELEASE_UNCONFIRMED';

/** Judges the rules over a whole run's result (its merged histograms). */
export function judgeResult(rules: readonly Threshold[], result: RunResult): Verdict[] {
  const histograms = Object.fromEntries(OP_NAMES.map((op) => [op, decode(result.operations[op].histogram)])) as Record<OpName, Histogram>;
  try {
    // renew-hold: a lock held to the end whose release went unconfirmed was held (see table.ts), not a failed hold.
    const unconfirmed = result.errors[kUnconfirmedRelease] ?? 0;
    const errors = Object.values(result.errors).reduce((a, b) => a + b, 0) - unconfirmed;
    return judge(rules, {
      cycles: result.cycles + unconfirmed, errors, seconds: result.measuredSeconds, histograms,
      ...(result.due === undefined ? {} : { due: result.due, lateStarts: result.lateStarts ?? 0 }),
    });
  } finally {
    for (const op of OP_NAMES) histograms[op].destroy();
  }
}
