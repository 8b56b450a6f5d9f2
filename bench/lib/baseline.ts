/**
 * The CI regression rule of `npm run bench:ci`: per configuration (c64, c512) a few figures that
 * do not swing with the machine's neighbours, each judged against bench/baseline.json:
 *
 *   max: the figure may not rise above baseline × (1 + tolerance)   (calls, bytes, CPU per cycle)
 *   min: the figure may not fall below baseline × (1 − tolerance)   (throughput, very loosely)
 */

export type Bound = 'max' | 'min';

export interface Rule {
  readonly bound: Bound;
  readonly tolerance: number;
}

export interface BaselineFigure extends Rule {
  readonly baseline: number;
}

/** metric → value, for one configuration. */
export type Figures = Readonly<Record<string, number>>;
/** configuration → metric → value: one run's measurements. */
export type Run = Readonly<Record<string, Figures>>;

/** configuration → metric → its baseline and how it is judged. */
export type BaselineFigures = Readonly<Record<string, Readonly<Record<string, BaselineFigure>>>>;

/** bench/baseline.json. */
export interface Baseline {
  /** The figures that do not depend on the CPU model (calls, bytes, allocations, scheduling). */
  readonly figures: BaselineFigures;
  /**
   * Per CPU model (the start of os.cpus()[0].model), the figures that do (client CPU ratios): the
   * same code read cpuRatio 0.71 at c64 on an AMD EPYC and 0.48–0.66 on an Intel Xeon of the same
   * machine kind, so one baseline for both let a 15% slower client pass on one of them.
   */
  readonly cpuModels?: Readonly<Record<string, { readonly figures: BaselineFigures; readonly measured?: string }>>;
  readonly measured?: string;
  readonly refresh?: string;
}

/** The CPU model entry of `baseline` for `cpu` (a host's os.cpus()[0].model), if one was recorded. */
export function cpuModelOf(baseline: Baseline, cpu: string): string | undefined {
  return Object.keys(baseline.cpuModels ?? {}).find((model) => cpu.startsWith(model));
}

/** The figures judged on a host with `cpu`: the model-independent ones and that model's, if recorded. */
export function figuresFor(baseline: Baseline, cpu: string): BaselineFigures {
  const model = cpuModelOf(baseline, cpu);
  const own = model === undefined ? {} : baseline.cpuModels![model]!.figures;
  const out: Record<string, Record<string, BaselineFigure>> = {};
  for (const source of [baseline.figures, own]) {
    for (const [config, figures] of Object.entries(source)) out[config] = { ...out[config], ...figures };
  }
  return out;
}

export interface BaselineRow extends BaselineFigure {
  readonly config: string;
  readonly metric: string;
  readonly measured: number | undefined;
  /** The worst value that still passes. */
  readonly limit: number;
  readonly ok: boolean;
}

export interface BaselineVerdict {
  readonly ok: boolean;
  readonly rows: readonly BaselineRow[];
}

function checkRule(name: string, rule: Rule): void {
  // The rule may come from a hand-edited JSON file.
  const bound: string = rule.bound;
  if (bound !== 'max' && bound !== 'min') throw new RangeError(`${name}: bound must be max or min, got ${bound}`);
  if (!(rule.tolerance >= 0 && rule.tolerance < 1)) throw new RangeError(`${name}: tolerance must be in [0, 1), got ${rule.tolerance}`);
}

export function limitOf(figure: BaselineFigure): number {
  return figure.bound === 'max' ? figure.baseline * (1 + figure.tolerance) : figure.baseline * (1 - figure.tolerance);
}

/**
 * Every figure of the baseline must have been measured and be within its limit; figures measured
 * but absent from the baseline are not judged. A missing or non-finite measurement fails, and so
 * does a baseline that names nothing.
 */
export function compareToBaseline(measured: Run, baseline: Baseline, cpu = ''): BaselineVerdict {
  const rows: BaselineRow[] = [];
  for (const [config, figures] of Object.entries(figuresFor(baseline, cpu))) {
    for (const [metric, figure] of Object.entries(figures)) {
      checkRule(`${config} ${metric}`, figure);
      const value = measured[config]?.[metric];
      const limit = limitOf(figure);
      const ok = value !== undefined && Number.isFinite(value) && (figure.bound === 'max' ? value <= limit : value >= limit);
      rows.push({ config, metric, ...figure, measured: value, limit, ok });
    }
  }
  return { ok: rows.length > 0 && rows.every((row) => row.ok), rows };
}

/**
 * A baseline's figures from several runs: for each figure that has a rule, the most lenient value
 * seen (the highest under a max bound, the lowest under a min bound), so that every run of the
 * same code that the baseline was made from passes it.
 */
export function baselineFigures(runs: readonly Run[], ruleOf: (config: string, metric: string) => Rule | undefined): Baseline['figures'] {
  const out: Record<string, Record<string, BaselineFigure>> = {};
  for (const run of runs) {
    for (const [config, figures] of Object.entries(run)) {
      for (const [metric, value] of Object.entries(figures)) {
        const rule = ruleOf(config, metric);
        if (rule === undefined) continue;
        checkRule(`${config} ${metric}`, rule);
        if (!Number.isFinite(value)) throw new RangeError(`${config} ${metric}: cannot make a baseline of ${value}`);
        const seen = (out[config] ??= {})[metric]?.baseline;
        const baseline = seen === undefined ? value : rule.bound === 'max' ? Math.max(seen, value) : Math.min(seen, value);
        out[config][metric] = { baseline, bound: rule.bound, tolerance: rule.tolerance };
      }
    }
  }
  return out;
}

/**
 * The most favourable value of each figure over several runs of the same code (the lowest under a
 * max bound, the highest under a min bound): what a re-measured gate judges. A regression is in
 * every run; a neighbour's burst of CPU seldom covers all of them.
 */
export function bestOf(runs: readonly Run[], boundOf: (config: string, metric: string) => Bound | undefined): Run {
  const out: Record<string, Record<string, number>> = {};
  for (const run of runs) {
    for (const [config, figures] of Object.entries(run)) {
      for (const [metric, value] of Object.entries(figures)) {
        const seen = (out[config] ??= {})[metric];
        const bound = boundOf(config, metric);
        if (seen === undefined || !Number.isFinite(seen)) out[config][metric] = value;
        else if (Number.isFinite(value)) out[config][metric] = bound === 'min' ? Math.max(seen, value) : Math.min(seen, value);
      }
    }
  }
  return out;
}

function show(value: number): string {
  return Math.abs(value) >= 100 ? value.toFixed(1) : value.toPrecision(4);
}

/** One line per figure, for the CI log. */
export function formatVerdict(verdict: BaselineVerdict): string {
  const lines = verdict.rows.map((row) => {
    const got = row.measured === undefined ? 'not measured' : show(row.measured);
    const change = row.measured === undefined || row.baseline === 0 ? '' : ` (${row.measured >= row.baseline ? '+' : ''}${(((row.measured - row.baseline) / row.baseline) * 100).toFixed(1)}%)`;
    return `${row.ok ? 'ok  ' : 'FAIL'} ${row.config} ${row.metric} = ${got}${change}; baseline ${show(row.baseline)}, ${row.bound === 'max' ? 'at most' : 'at least'} ${show(row.limit)}`;
  });
  if (verdict.rows.length === 0) lines.push('FAIL the baseline names no figure');
  return lines.join('\n');
}
