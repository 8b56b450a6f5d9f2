/**
 * The CI regression rule: pipelock's throughput as a ratio to the quorum ceiling (raw @redis/client
 * on the same masters, in the same run) may fall at most `tolerance` below the committed baseline
 * ratio. A ratio, not cycles/s, so that a slower or busier CI machine does not fail the build.
 */

/** bench/baseline.json: per configuration, pipelock's cycles/s ÷ the quorum ceiling's. */
export interface Baseline {
  readonly tolerance: number;
  readonly ratios: Readonly<Record<string, number>>;
  readonly measured?: string;
  readonly refresh?: string;
}

export interface BaselineRow {
  readonly config: string;
  readonly measured: number | undefined;
  readonly baseline: number;
  /** baseline × (1 − tolerance): the lowest ratio that passes. */
  readonly floor: number;
  readonly ok: boolean;
}

export interface BaselineVerdict {
  readonly ok: boolean;
  readonly rows: readonly BaselineRow[];
}

/**
 * Every configuration in the baseline must have been measured and reach its floor; a configuration
 * measured but absent from the baseline is not judged. A missing or non-finite measurement fails.
 */
export function compareToBaseline(measured: Readonly<Record<string, number>>, baseline: Baseline): BaselineVerdict {
  if (!(baseline.tolerance >= 0 && baseline.tolerance < 1)) throw new RangeError(`baseline tolerance must be in [0, 1), got ${baseline.tolerance}`);
  const rows: BaselineRow[] = [];
  for (const [config, base] of Object.entries(baseline.ratios)) {
    const value = measured[config];
    const floor = base * (1 - baseline.tolerance);
    const ok = value !== undefined && Number.isFinite(value) && value >= floor;
    rows.push({ config, measured: value, baseline: base, floor, ok });
  }
  return { ok: rows.length > 0 && rows.every((row) => row.ok), rows };
}

/** One line per configuration, for the CI log. */
export function formatVerdict(verdict: BaselineVerdict): string {
  const lines = verdict.rows.map((row) => {
    const got = row.measured === undefined ? 'not measured' : `${row.measured.toFixed(3)}×`;
    return `${row.ok ? 'ok  ' : 'FAIL'} ${row.config}: pipelock ÷ quorum ceiling = ${got}; baseline ${row.baseline.toFixed(3)}×, floor ${row.floor.toFixed(3)}×`;
  });
  if (verdict.rows.length === 0) lines.push('FAIL the baseline names no configuration');
  return lines.join('\n');
}
