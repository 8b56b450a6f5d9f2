import { partLabel, type Comparison, type Row, type SideValue, type Verdict } from '../load/compare.js';

/** The sign of a comparison's (or a part's) verdict in the Markdown summary. */
const kSign: Readonly<Record<Comparison['verdict'], string>> = { regressed: '❌', inconclusive: '❔', ok: '✅' };

/** "acquire p99", "throughput"; a mix entry's or stage's row under its name: "orders: acquire p99". */
export function rowName(row: Row): string {
  const name = row.op === null ? row.metric : `${row.op} ${row.metric}`;
  return row.part === undefined ? name : `${partLabel(row.part)}: ${name}`;
}

/** One line per mix entry and stage compared: "orders regressed, hot ok". */
export function partVerdicts(comparison: Comparison): string | undefined {
  const parts = comparison.parts;
  if (parts === undefined) return undefined;
  return parts.map((p) => `${partLabel(p)} ${p.verdict}`).join(', ');
}

function number(value: number, unit: Row['unit']): string {
  return unit === 'µs' ? String(Math.round(value)) : value.toFixed(1);
}

/** "1234 (1200–1260)": the value and the range noise could have put it in. */
function side(value: SideValue, unit: Row['unit']): string {
  if (value.runs.length === 0) return '-';
  const v = number(value.value, unit);
  const low = number(value.low, unit);
  const high = number(value.high, unit);
  return low === v && high === v ? v : `${v} (${low}–${high})`;
}

function change(row: Row): string {
  if (row.change === null) return '-';
  const percent = 100 * row.change;
  return `${percent >= 0 ? '+' : ''}${percent.toFixed(1)}%`;
}

function limit(row: Row): string {
  return row.limit === null ? 'off' : `${row.limit}%`;
}

/** The first line: the verdict and what caused it. */
export function headline(comparison: Comparison): string {
  const list =
    (verdict: Verdict): string => comparison.rows.filter((r) => r.verdict === verdict).map((r) => `${rowName(r)} ${change(r)} `
      + `(limit ${limit(r)})`).join(', ');
  if (comparison.verdict === 'regressed') return `REGRESSED: ${list('regressed')}`;
  if (comparison.verdict === 'inconclusive')
    return `INCONCLUSIVE, too few runs a side to tell from run-to-run noise: ${list('inconclusive')}`;
  return 'no regression beyond the limits';
}

function files(comparison: Comparison): string {
  const list = (f: readonly string[]): string => `${f.join(', ')} (${f.length} run${f.length === 1 ? '' : 's'})`;
  return `base: ${list(comparison.base.files)}\nnew:  ${list(comparison.new.files)}`;
}

/** The terminal table. */
export function formatComparison(comparison: Comparison): string {
  const cells =
    comparison.rows.map((r) => [`${rowName(r)} (${r.unit})`, side(r.base, r.unit), side(r.new, r.unit), change(r), limit(r), r.verdict]);
  const head = ['', 'base', 'new', 'change', 'limit', 'verdict'];
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: readonly string[]): string => c.map((cell, i) => (i === 0
    || i === 5 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ').trimEnd();
  return [
    `pipelock report compare: ${headline(comparison)}`,
    files(comparison),
    '',
    line(head),
    ...cells.map(line),
    '',
    ...(partVerdicts(comparison) === undefined ? [] : [`by entry and stage: ${partVerdicts(comparison)!}`]),
    `noise: ${comparison.noise}`,
    ...comparison.notes.map((n) => `note: ${n}`),
  ].join('\n');
}

const kMark: Readonly<Record<Verdict, string>> = { regressed: '❌ regressed', improved: '✅ improved', noise: '〰️ noise',
  inconclusive: '❔ inconclusive', ok: 'ok', unjudged: '–', missing: 'missing' };

/** A pull-request comment: the verdict, the table, then how noise was judged, folded. */
export function markdownComparison(comparison: Comparison): string {
  const escape = (text: string): string => text.replaceAll('|', '\\|');
  return [
    `### pipelock report compare: ${kSign[comparison.verdict]} ${escape(headline(comparison))}`,
    '',
    ...(comparison.parts === undefined ? []
      : [`By entry and stage: ${comparison.parts.map((p) => `${escape(partLabel(p))} ${kSign[p.verdict]} ${p.verdict}`).join(', ')}`, '']),
    '| metric | base | new | change | limit | verdict |',
    '| --- | ---: | ---: | ---: | ---: | --- |',
    ...comparison.rows.map((r) => `| ${rowName(r)} (${r.unit}) | ${side(r.base, r.unit)} | ${side(r.new, r.unit)} | ${change(r)} | `
      + `${limit(r)} | ${kMark[r.verdict]} |`),
    '',
    '<details><summary>Runs and noise</summary>',
    '',
    ...files(comparison).split('\n').map((l) => `- ${escape(l)}`),
    `- noise: ${escape(comparison.noise)}`,
    ...comparison.notes.map((n) => `- note: ${escape(n)}`),
    '',
    '</details>',
    '',
  ].join('\n');
}
