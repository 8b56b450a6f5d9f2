import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { compare, kDefaultThresholds, kMinRuns, METRICS, type Comparison, type Thresholds } from '../load/compare.js';
import { renderReport } from '../load/html.js';
import { readResult } from '../load/result-file.js';
import { OP_NAMES } from '../load/result.js';
import { EXIT, parseOr, UsageError, usageFailure } from './errors.js';
import { checkRepeats, fromParseArgs, path } from './flags.js';
import { formatComparison, markdownComparison } from './compare-format.js';

const defaults = Object.entries(kDefaultThresholds).map(([k, v]) => `${k}=${v === null ? 'off' : `${v}%`}`).join(',');

/** Exit code of a comparison that gives no verdict: a metric worse past its limit with too few runs a side. */
export const kExitInconclusive = 3;

export const COMPARE_USAGE = `usage: pipelock report compare BASE.json NEW.json [flags]
       pipelock report compare A1.json,A2.json,A3.json B1.json,B2.json,B3.json [flags]
       pipelock report compare --base A1.json --base A2.json … --new B1.json --new B2.json … [flags]

Compares results written by \`pipelock loadtest --json\`: throughput and, per operation, p50/p90/p99/p99.9
side by side with the change, and a verdict. A metric regresses when it worsens by more than its limit
AND beyond the noise: the two sides' ranges must not overlap. With several runs per side each side is
their median and its range is theirs (every new run worse than every base run). A side needs ${kMinRuns} runs
or more for a verdict: with fewer, a metric worse past its limit is "inconclusive" (exit ${kExitInconclusive}), since one
run's sampling range cannot see run-to-run noise; the message gives the commands to repeat the runs.
Scenario runs with the same mix entries (or stages) on every run are also compared per entry and per
stage, each with its own verdict; one entry that regressed makes the comparison regress.
  --base FILE            a baseline run (repeat for several); instead of the positional BASE.json
  --new FILE             a run of the change (repeat for several); instead of the positional NEW.json
  --max-regression LIST  limits in percent by metric (${METRICS.join(', ')}), or by operation
                         (${OP_NAMES.join(', ')}) and metric as acquire.p99; "off" shows without judging.
                         Each name given replaces its default; the defaults: ${defaults}
  --json FILE            write the comparison as JSON ("-": stdout)
  --markdown FILE        write it as a pull-request comment ("-": stdout, e.g. >> "$GITHUB_STEP_SUMMARY")
  --html FILE            write a report with both sides overlaid
  --help                 show this

Exit codes: 0 no regression, 1 a regression, 2 bad arguments, an unreadable result file, runs made
under different load settings (or stopped early), or an output that could not be written,
${kExitInconclusive} inconclusive (fewer than ${kMinRuns} runs a side and a metric worse past its limit).`;

export interface CompareArgs {
  readonly base: readonly string[];
  readonly new: readonly string[];
  readonly thresholds: Thresholds;
  readonly json: string | undefined;
  readonly markdown: string | undefined;
  readonly html: string | undefined;
}

/** Parses and validates `pipelock report compare …` arguments (after `compare`); throws UsageError naming the flag. */
export function parseCompareArgs(args: readonly string[]): CompareArgs | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args], allowPositionals: true, strict: true, tokens: true,
      options: {
        base: { type: 'string', multiple: true }, new: { type: 'string', multiple: true },
        'max-regression': { type: 'string' }, json: { type: 'string' }, markdown: { type: 'string' }, html: { type: 'string' },
          help: { type: 'boolean' },
      },
    });
    checkRepeats(parsed.tokens.filter((t) => t.kind !== 'option' || (t.name !== 'base' && t.name !== 'new')));
  } catch (error) {
    throw fromParseArgs(error, 'report compare');
  }
  const v = parsed.values;
  if (v.help === true) return 'help';
  const positionals = parsed.positionals;
  let base = v.base ?? [];
  let next = v.new ?? [];
  if (positionals.length > 0) {
    if (base.length > 0 || next.length > 0)
      throw new UsageError('report compare', 'takes either BASE.json NEW.json or --base/--new, not both', positionals.join(' '));
    if (positionals.length !== 2) {
      throw new UsageError('report compare',
        `takes two result files, BASE.json NEW.json (for several runs a side, A1.json,A2.json B1.json,B2.json or --base and --new), got `
          + `${positionals.length}`);
    }
    // A comma-separated list is several runs of one side; an empty item is a typo, not a file.
    [base, next] = positionals.map((list) => list.split(',')) as [string[], string[]];
  }
  if (base.length === 0) throw new UsageError('--base', 'needs at least one result file (or give BASE.json NEW.json)');
  if (next.length === 0) throw new UsageError('--new', 'needs at least one result file (or give BASE.json NEW.json)');
  [...base, ...next].forEach((file, i, all) => {
    path(i < base.length ? '--base' : '--new', file);
    const first = all.indexOf(file);
    // The same run on both sides, or twice on one, would make noise look smaller than it is.
    if (first !== i) throw new UsageError(i < base.length ? '--base' : '--new', 'must not name a result file twice', file);
  });
  const outputs = { json: v.json, markdown: v.markdown, html: v.html };
  for (const [name, file] of Object.entries(outputs)) if (file !== undefined) path(`--${name}`, file);
  const named = Object.entries(outputs).filter(([, f]) => f !== undefined);
  for (const [i, [name, file]] of named.entries()) {
    const other = named.slice(0, i).find(([, f]) => f === file);
    if (other !== undefined)
      throw new UsageError(`--${name}`, `conflicts with --${other[0]}: both name ${file === '-' ? 'stdout' : 'the same file'}`);
  }
  if (v.html === '-') throw new UsageError('--html', 'must name a file (not - for stdout)');
  const thresholds = v['max-regression'] === undefined ? kDefaultThresholds : parseThresholds(v['max-regression']);
  return { base, new: next, thresholds, ...outputs };
}

/** `p99=10%,throughput=5%,acquire.p99.9=off`: names not given keep their default. */
export function parseThresholds(value: string): Thresholds {
  const flag = '--max-regression';
  const out: Record<string, number | null> = { ...kDefaultThresholds };
  const given = new Set<string>();
  for (const entry of value.split(',')) {
    const match = /^\s*([\w.]+)\s*=\s*(\S+)\s*$/.exec(entry);
    if (match === null) throw new UsageError(flag, 'must be a comma-separated list of METRIC=N% (e.g. p99=10%,throughput=5%)', entry);
    const [, key, limit] = match as unknown as [string, string, string];
    const dot = key.indexOf('.');
    // p99.9 has a dot of its own: a key is `metric` or `op.metric`.
    const op = (METRICS as readonly string[]).includes(key) || dot === -1 ? undefined : key.slice(0, dot);
    const metric = op === undefined ? key : key.slice(dot + 1);
    if (op !== undefined && !(OP_NAMES as readonly string[]).includes(op))
      throw new UsageError(flag, `names an operation that is not one of ${OP_NAMES.join(', ')}`, entry);
    if (!(METRICS as readonly string[]).includes(metric) || (op !== undefined && metric === 'throughput')) {
      throw new UsageError(flag,
        `names a metric that is not one of ${METRICS.join(', ')} (per operation: ${METRICS.filter((m) => m !== 'throughput').join(', ')})`,
          entry);
    }
    if (given.has(key)) throw new UsageError(flag, `names ${key} more than once`, entry);
    given.add(key);
    if (limit === 'off') {
      out[key] = null;
      continue;
    }
    const percent = /^(\d+(?:\.\d+)?)%$/.exec(limit);
    const n = percent === null ? NaN : Number(percent[1]);
    if (!Number.isFinite(n) || n > 1000)
      throw new UsageError(flag, 'limits must be a percentage from 0% to 1000% (with the %), or off', entry);
    out[key] = n;
  }
  return Object.freeze(out);
}

/** `pipelock report compare …`: 0 no regression, 1 regressed, 2 anything that stopped the comparison. */
export async function reportCompare(args: readonly string[]): Promise<number> {
  const parsed = parseOr('report compare', COMPARE_USAGE, () => parseCompareArgs(args), true);
  if (typeof parsed === 'number') return parsed;
  try {
    const base = await Promise.all(parsed.base.map(readResult));
    const next = await Promise.all(parsed.new.map(readResult));
    const comparison = compare({ files: parsed.base, results: base }, { files: parsed.new, results: next }, parsed.thresholds);
    const table = formatComparison(comparison);
    // A machine-readable output on stdout keeps it clean: the table then goes to stderr.
    if (parsed.json === '-' || parsed.markdown === '-') console.error(table);
    else console.log(table);
    if (parsed.json !== undefined) await write(parsed.json, `${JSON.stringify(comparison, null, 2)}\n`);
    if (parsed.markdown !== undefined) await write(parsed.markdown, markdownComparison(comparison));
    if (parsed.html !== undefined) {
      await write(parsed.html, renderReport({
        title: 'pipelock report compare',
        series: [...base.map((result, i) => ({ label: `base ${parsed.base[i]!}`, result })),
          ...next.map((result, i) => ({ label: `new ${parsed.new[i]!}`, result }))],
        comparison,
      }));
    }
    if (comparison.verdict === 'inconclusive') console.error(repeatHint(comparison));
    return comparison.verdict === 'regressed' ? EXIT.failed : comparison.verdict === 'inconclusive' ? kExitInconclusive : EXIT.ok;
  } catch (error) {
    return fail(error);
  }
}

/** What to run for a verdict: each side's runs repeated up to kMinRuns, then the comparison of them all. */
export function repeatHint(comparison: Comparison): string {
  const more = (files: readonly string[]): string[] => {
    const stem = files[0]!.replace(/\.json$/, '');
    return [...files, ...Array.from({ length: Math.max(0, kMinRuns - files.length) }, (_, i) => `${stem}-${files.length + i + 1}.json`)];
  };
  const base = more(comparison.base.files);
  const next = more(comparison.new.files);
  const added = [...base.filter((f) => !comparison.base.files.includes(f)), ...next.filter((f) => !comparison.new.files.includes(f))];
  return `pipelock report compare: no verdict (exit ${kExitInconclusive}): fewer than ${kMinRuns} runs a side cannot tell a change from `
    + `run-to-run noise. ` +
    `Repeat the runs with the same pipelock loadtest flags, alternating the two builds, writing ${added.join(', ')} (--json `
      + `FILE), then:\n` +
    `  pipelock report compare ${base.join(',')} ${next.join(',')}`;
}

// Exit code 1 means "regressed" here, so every failure to compare, whatever its kind, is 2.
function fail(error: unknown): number {
  return usageFailure('report compare', error, true);
}

async function write(file: string, text: string): Promise<void> {
  if (file === '-') {
    process.stdout.write(text);
    return;
  }
  try {
    await writeFile(file, text);
  } catch (error) {
    throw new Error(`cannot write ${file}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  console.error(`wrote ${file}`);
}
