import { describeServers, type HostLine } from './host.js';
import { median } from '../shared/median.js';
import { percentileInterval, separationChance, throughputInterval, type Interval } from './noise.js';
import { OP_NAMES, type OpName, type PartResult, type RunResult } from './result.js';

/** What `report compare` judges: throughput (higher is better), latency percentiles (lower is better). */
export const METRICS = ['throughput', 'p50', 'p90', 'p99', 'p99.9'] as const;
export type Metric = (typeof METRICS)[number];
const kPercentile: Readonly<Record<Exclude<Metric, 'throughput'>, number>> = { p50: 50, p90: 90, p99: 99, 'p99.9': 99.9 };

/**
 * Largest tolerated worsening, in percent, by `metric` or `op.metric` (the latter wins); null: shown, not judged.
 * The tail gets more room by default: p99.9 of a 10 s run rests on a few hundred values.
 */
export type Thresholds = Readonly<Record<string, number | null>>;
export const kDefaultThresholds: Thresholds = Object.freeze({ throughput: 5, p50: 10, p90: 10, p99: 15, 'p99.9': 25 });

/**
 * regressed: worse by more than the limit and beyond the noise; improved: the same the other way;
 * noise: past the limit but inside the noise; inconclusive: worse by more than the limit and beyond
 * the sampling ranges, with fewer than kMinRuns runs on a side, which cannot tell that from
 * run-to-run noise; ok: within the limit; unjudged: no limit; missing: no values on a side.
 */
export type Verdict = 'regressed' | 'improved' | 'noise' | 'inconclusive' | 'ok' | 'unjudged' | 'missing';

/**
 * Runs a side needs before a worse metric counts as a regression. Two runs of the same build on an
 * idle machine differ by more than one run's sampling range (p90–p99.9 +16 % to +30 % in 4 s runs),
 * so fewer runs give no verdict (docs/load-testing.md#regression-checks-in-ci-pipelock-report-compare).
 */
export const kMinRuns = 3;

export interface SideValue extends Interval {
  /** The value of each run of the side, in the order given. */
  readonly runs: readonly number[];
}

/** A scenario's mix entry or stage, compared on its own: the runs' `mix` or `stages` part of that name. */
export interface PartName {
  readonly of: 'mix' | 'stages';
  readonly name: string;
}

/** "orders" for a mix entry, "stage 2s at 200/s" for a stage. */
export function partLabel(part: PartName): string {
  return part.of === 'mix' ? part.name : `stage ${part.name}`;
}

export interface Row {
  /** The mix entry or stage the row judges; absent: the whole run. */
  readonly part?: PartName;
  /** null for throughput, which is per cycle. */
  readonly op: OpName | null;
  readonly metric: Metric;
  readonly unit: 'cycles/s' | 'µs';
  readonly base: SideValue;
  readonly new: SideValue;
  /** new / base − 1; null when base is 0 or a side has no values. */
  readonly change: number | null;
  readonly limit: number | null;
  readonly verdict: Verdict;
}

export interface Side {
  readonly files: readonly string[];
  readonly results: readonly RunResult[];
}

export interface Comparison {
  readonly format: 'pipelock-compare';
  readonly version: 1;
  /** inconclusive: a metric is worse past its limit but a side has fewer than kMinRuns runs. */
  readonly verdict: 'regressed' | 'inconclusive' | 'ok';
  readonly base: { readonly files: readonly string[] };
  readonly new: { readonly files: readonly string[] };
  /** How noise was told apart from change, in words. */
  readonly noise: string;
  readonly rows: readonly Row[];
  /** Per mix entry and per stage, when every run of both sides has the same ones (more than one): the verdict over its rows. */
  readonly parts?: readonly (PartName & { readonly verdict: Comparison['verdict'] })[];
  /** Differences that do not stop the comparison but a reader should know (hardware, versions, durations). */
  readonly notes: readonly string[];
}

/**
 * The runs cannot be compared (different load settings, a stopped run, different numbers of merged
 * machines): exit code 2. Names the file and the setting.
 */
export class IncomparableError extends Error {
  override readonly name = 'IncomparableError';
  readonly code = 'ERR_PIPELOCK_INCOMPARABLE';
  readonly file: string;
  readonly setting: string;

  constructor(file: string, setting: string, message: string) {
    super(message);
    this.file = file;
    this.setting = setting;
  }
}

/** The load settings two runs must share to be compared, with the flag that sets each. */
const kSettings: readonly (readonly [string, string])[] = [
  ['operation', '--operation'], ['kind', '--kind'], ['permits', '--permits'], ['masterCount', '--masters/--servers'],
    ['workers', '--workers'], ['concurrency', '--concurrency'],
  ['rate', '--rate'], ['keys', '--keys'], ['holdMs', '--hold'], ['lockMs', '--lock-duration'],
  ['retryCount', '--retry-count'], ['retryDelayMs', '--retry-delay'], ['retryJitterMs', '--retry-jitter'],
];

function setting(host: HostLine, key: string): string {
  const f = host.flags;
  if (key === 'masterCount') return String(Array.isArray(f.servers) && f.servers.length > 0 ? f.servers.length : f.masters);
  // Files written before --kind were mutex runs; permits mean something for semaphores only.
  if (key === 'kind') return String(f.kind ?? 'mutex');
  if (key === 'permits') return f.kind === 'semaphore' ? String(f.permits) : '–';
  return String(f[key]);
}

/** Throws IncomparableError unless every run of both sides was made under the same load; returns notes on what differs harmlessly. */
export function checkComparable(base: Side, next: Side): string[] {
  const all = [...base.files.map((file, i) => ({ file, result: base.results[i]! })),
    ...next.files.map((file, i) => ({ file, result: next.results[i]! }))];
  const first = all[0]!;
  for (const { file, result } of all) {
    if (result.interrupted) throw new IncomparableError(file, 'interrupted',
      `${file} is a run stopped before its end (interrupted): its figures cover a different window`);
    if (result.runs !== first.result.runs) {
      throw new IncomparableError(file, 'runs',
        `${file} merges ${result.runs} run(s) and ${first.file} ${first.result.runs}: summed throughput is comparable only over the same `
          + `number of load generators`);
    }
    for (const host of result.hosts) {
      for (const [key, flag] of kSettings) {
        const want = setting(first.result.hosts[0]!, key);
        const got = setting(host, key);
        if (got !== want) throw new IncomparableError(file, flag,
          `${file} ran with ${flag} ${got}, ${first.file} with ${want}: compare runs made under the same load`);
      }
    }
  }
  const notes: string[] = [];
  const differing = (label: string, of: (h: HostLine) => string): void => {
    const seen = new Set(all.flatMap(({ result }) => result.hosts.map(of)));
    if (seen.size > 1) notes.push(`${label} differs between runs: ${[...seen].join(' | ')}`);
  };
  differing('CPU', (h) => `${h.cpu} ×${h.cores}`);
  differing('node', (h) => h.node);
  differing('server', (h) => describeServers(h));
  differing('pipelock', (h) => h.pipelock);
  differing('measured duration', (h) => `${Number(h.flags.durationMs) / 1000}s`);
  return notes;
}

/** Compares the sides metric by metric, each mix entry and stage alike; throws IncomparableError unless they ran the same load. */
export function compare(base: Side, next: Side, thresholds: Thresholds = kDefaultThresholds): Comparison {
  const notes = checkComparable(base, next);
  const whole = (r: RunResult): Measured => r;
  const judged: Row[] = rowsOf(base, next, thresholds, whole, undefined);
  const parts = partNames(base, next, notes);
  for (const part of parts) judged.push(...rowsOf(base, next, thresholds, (r) => r[part.of]!.find((p) => p.name === part.name)!, part));
  const few = Math.min(base.results.length, next.results.length) < kMinRuns;
  const rows = few ? judged.map((r) => (r.verdict === 'regressed' ? { ...r, verdict: 'inconclusive' as const } : r)) : judged;
  return {
    format: 'pipelock-compare',
    version: 1,
    verdict: verdictOf(rows),
    base: { files: [...base.files] },
    new: { files: [...next.files] },
    noise: describeNoise(base.results.length, next.results.length),
    rows,
    ...(parts.length === 0 ? {} : { parts: parts.map((part) => ({ ...part,
      verdict: verdictOf(rows.filter((r) => r.part?.of === part.of && r.part.name === part.name)) })) }),
    notes,
  };
}

/** What a row reads of a run or of one of its parts. */
type Measured = Pick<RunResult, 'throughput' | 'operations'> & { readonly timeline?: RunResult['timeline'] };

function verdictOf(rows: readonly Row[]): Comparison['verdict'] {
  return rows.some((r) => r.verdict === 'regressed') ? 'regressed' : rows.some((r) => r.verdict === 'inconclusive') ? 'inconclusive' : 'ok';
}

function rowsOf(base: Side, next: Side, thresholds: Thresholds, of: (r: RunResult) => Measured, part: PartName | undefined): Row[] {
  const rows: Row[] = [row(part, null, 'throughput', base, next, of, limitOf(thresholds, null, 'throughput'))];
  for (const op of OP_NAMES) {
    if (base.results.every((r) => of(r).operations[op].count === 0) && next.results.every((r) => of(r).operations[op].count === 0))
      continue;
    for (const metric of METRICS) if (metric !== 'throughput')
      rows.push(row(part, op, metric, base, next, of, limitOf(thresholds, op, metric)));
  }
  return rows;
}

/**
 * The mix entries and stages every run of both sides has, by name in the same order, when there is
 * more than one of either (one is the whole run); a list that differs between runs is noted, not compared.
 */
function partNames(base: Side, next: Side, notes: string[]): PartName[] {
  const all = [...base.results, ...next.results];
  const names: PartName[] = [];
  for (const of of ['mix', 'stages'] as const) {
    const lists = all.map((r) => (r[of] ?? []).map((p: PartResult) => p.name));
    if (lists.every((l) => l.length <= 1)) continue;
    if (lists.some((l) => l.join('\n') !== lists[0]!.join('\n'))) {
      notes.push(`${of === 'mix' ? 'mix entries' : 'stages'} differ between runs `
        + `(${[...new Set(lists.map((l) => l.join(', ') || 'none'))].join(' | ')}): compared as whole runs only`);
      continue;
    }
    names.push(...lists[0]!.map((name) => ({ of, name })));
  }
  return names;
}

function limitOf(thresholds: Thresholds, op: OpName | null, metric: Metric): number | null {
  const specific = op === null ? undefined : thresholds[`${op}.${metric}`];
  if (specific !== undefined) return specific;
  return thresholds[metric] ?? null;
}

function row(part: PartName | undefined, op: OpName | null, metric: Metric, base: Side, next: Side, of: (r: RunResult) => Measured,
  limit: number | null): Row {
  const b = sideValue(base, of, op, metric);
  const n = sideValue(next, of, op, metric);
  const unit = metric === 'throughput' ? 'cycles/s' : 'µs';
  const at = part === undefined ? {} : { part };
  if (b === undefined || n === undefined) {
    const none: SideValue = { value: 0, low: 0, high: 0, runs: [] };
    return { ...at, op, metric, unit, base: b ?? none, new: n ?? none, change: null, limit, verdict: 'missing' };
  }
  const change = b.value === 0 ? null : n.value / b.value - 1;
  // Worse is up for latency, down for throughput; `worse` > 0 means the new side is worse.
  const sign = metric === 'throughput' ? -1 : 1;
  const worse = change === null ? 0 : sign * change;
  const apart = sign > 0 ? { worse: n.low > b.high, better: n.high < b.low } : { worse: n.high < b.low, better: n.low > b.high };
  let verdict: Verdict;
  if (limit === null) verdict = 'unjudged';
  else if (Math.abs(worse) * 100 <= limit) verdict = 'ok';
  else if (worse > 0) verdict = apart.worse ? 'regressed' : 'noise';
  else verdict = apart.better ? 'improved' : 'noise';
  return { ...at, op, metric, unit, base: b, new: n, change, limit, verdict };
}

/**
 * One run: its value and its sampling interval. Several: the median, and the range the runs spread over,
 * which is what repetitions show of run-to-run noise.
 */
function sideValue(side: Side, of: (r: RunResult) => Measured, op: OpName | null, metric: Metric): SideValue | undefined {
  const measured = side.results.map(of);
  if (op !== null && measured.some((m) => m.operations[op].count === 0)) return undefined;
  // A part has no timeline of its own: one run's throughput then has no per-second spread.
  const intervals = measured.map((m) => (op === null || metric === 'throughput'
    ? throughputInterval({ throughput: m.throughput, timeline: m.timeline ?? [] }) : percentileInterval(m, op, kPercentile[metric])));
  const runs = intervals.map((i) => i.value);
  if (intervals.length === 1) return { ...intervals[0]!, runs };
  return { value: median(runs), low: Math.min(...runs), high: Math.max(...runs), runs };
}

function describeNoise(n: number, m: number): string {
  const rule = 'a change fails only when it passes its limit and the two sides\' noise ranges do not overlap';
  if (n >= kMinRuns && m >= kMinRuns) {
    const chance = separationChance(n, m);
    return `${rule}; each side is the median of its runs (base ${n}, new ${m}) and its range is theirs, so a regression means every new `
      + `run was worse than every base run ` +
      `(with no real change that happens by chance ${(100 * chance).toPrecision(2)}% of the time)`;
  }
  if (n >= 2 && m >= 2) {
    return `${rule}; each side is the median of its runs (base ${n}, new ${m}) and its range is theirs, but with fewer than `
      + `${kMinRuns} runs a side ` +
      `every run worse by chance is too likely (${(100 * separationChance(n, m)).toPrecision(2)}%): a metric worse past its limit is `
        + `inconclusive, not a regression`;
  }
  return `${rule}; a side with one run has only its sampling range (95 %: order statistics for percentiles, per-second spread `
    + `for throughput), ` +
    `which knows nothing of run-to-run noise, so a metric worse past its limit is inconclusive, not a regression: ` +
    `run each side ${kMinRuns} or more times, alternated (report compare A1.json,A2.json,A3.json B1.json,B2.json,B3.json), to compare `
      + `medians against the spread of repetitions`;
}
