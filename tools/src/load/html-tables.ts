import { partLabel, type Comparison, type Row } from './compare.js';
import { ATTEMPT_LABELS } from './contention.js';
import { describeServers, type HostLine } from './host.js';
import { OP_NAMES, type RunResult } from './result.js';
import { formatValue } from './thresholds.js';

/** One run (or a merge of runs) drawn in a report, under its label. */
export interface Series {
  readonly label: string;
  readonly result: RunResult;
}

export function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}

function table(id: string, head: readonly string[], rows: readonly (readonly string[])[]): string {
  const cells = (tag: string, row: readonly string[]): string => `<tr>${row.map((c) => `<${tag}>${c}</${tag}>`).join('')}</tr>`;
  return `<table id="${id}">${cells('th', head.map(escapeHtml))}${rows.map((r) => cells('td', r)).join('')}</table>`;
}

/** Flags as typed on the command line, in --help's order; times shown with their unit. */
const kFlagRows: readonly (readonly [string, string, 'ms' | 's' | '' | 'list'])[] = [
  ['scenario', '--scenario', ''], ['stages', 'stages', 'list'], ['mix', 'mix', 'list'], ['operation', '--operation', ''],
    ['kind', '--kind', ''], ['depth', '--depth', ''], ['permits', '--permits', ''], ['servers', '--servers', 'list'],
      ['masters', '--masters', ''], ['workers', '--workers', ''],
  ['concurrency', '--concurrency', ''], ['rate', '--rate', ''], ['durationMs', '--duration', 's'], ['warmupMs', '--warmup', 's'],
  ['keys', '--keys', ''], ['holdMs', '--hold', 'ms'], ['lockMs', '--lock-duration', 'ms'], ['retryCount', '--retry-count', ''],
  ['retryDelayMs', '--retry-delay', 'ms'], ['retryJitterMs', '--retry-jitter', 'ms'], ['startAt', '--start-at', ''],
];

/** Flags that mean something only for one lock kind: shown for runs of that kind, '–' for the others. */
const kKindFlags: Readonly<Record<string, string>> = { depth: 'reentrant', permits: 'semaphore' };

const applies = (key: string, host: HostLine): boolean => host.flags[key] !== undefined
  && (kKindFlags[key] === undefined || host.flags.kind === kKindFlags[key]);

function flagValue(value: HostLine['flags'][string] | undefined, unit: (typeof kFlagRows)[number][2]): string {
  if (value === undefined || value === null) return '–';
  if (unit === 'list') return Array.isArray(value) && value.length > 0 ? value.map(escapeHtml).join('<br>') : '– (embedded)';
  if (unit === 's') return `${Number(value) / 1000}s`;
  if (unit === 'ms') return `${String(value)}ms`;
  return escapeHtml(String(value));
}

/** Settings and machine, one column per run (a merged result contributes one column per machine). */
export function settingsTable(series: readonly Series[]): string {
  const columns = series.flatMap((s) => s.result.hosts.map((host,
    i) => ({ head: s.result.hosts.length > 1 ? `${s.label} #${i + 1}` : s.label, host, window: s.result.windows?.[i] })));
  const rows: string[][] = kFlagRows
    .filter(([key]) => columns.some((c) => applies(key, c.host)))
    .map(([key, flag, unit]) => [`<code>${flag}</code>`,
      ...columns.map((c) => (applies(key, c.host) ? flagValue(c.host.flags[key], unit) : '–'))]);
  const host = (label: string, of: (h: HostLine) => string): string[] => [label, ...columns.map((c) => escapeHtml(of(c.host)))];
  rows.push(
    host('host', (h) => h.hostname), host('CPU', (h) => `${h.cpu}, ${h.cores} cores, ${h.memoryGiB} GiB`), host('OS', (h) => h.os),
    host('node', (h) => h.node), host('server', (h) => describeServers(h, ', ')), host('pipelock', (h) => h.pipelock),
      host('started', (h) => h.startedAt),
    ['measured window',
      ...columns.map((c) => (c.window === undefined ? '–' : `${escapeHtml(c.window.from)} →<br>${escapeHtml(c.window.to)}`))],
  );
  return table('settings', ['setting', ...columns.map((c) => c.head)], rows);
}

/** Per run: throughput, errors by code, contention; then the latency percentiles per operation. */
export function summaryTable(series: readonly Series[]): string {
  const rows: string[][] = [];
  for (const { label, result } of series) {
    const errors =
      Object.entries(result.errors).sort(([, a], [, b]) => b - a).map(([code, n]) => `${escapeHtml(code)} ${n}`).join('<br>') || 'none';
    const late = (result.late === undefined || result.late === 0 ? '' : `; ${result.late} due in it not completed by its end (late)`) +
      (result.due === undefined ? '' : `; ${result.lateStarts ?? 0} of ${result.due} due started late or never`);
    rows.push([`<b>${escapeHtml(label)}</b>`,
      `${result.throughput.toFixed(1)} cycles/s (${result.cycles} cycles in ${result.measuredSeconds.toFixed(1)} `
        + `s${result.interrupted ? ', interrupted' : ''}${late})`,
      `${result.contendedAcquires} acquires lost ${result.lostAttempts} attempts`, errors]);
  }
  const latency: string[][] = [];
  for (const { label, result } of series) {
    for (const op of OP_NAMES) {
      const s = result.operations[op];
      if (s.count > 0) latency.push([escapeHtml(label), op, ...[s.count, s.p50, s.p90, s.p99, s.p999, s.max].map(String)]);
      // The acquisitions that retried and those that won with their first attempt, as in the text report.
      if (op === 'acquire' && result.waits !== undefined && result.waits.retried.count > 0) {
        for (const [name, w] of [['acquire, retried', result.waits.retried], ['acquire, 1st attempt', result.waits.firstAttempt]] as const)
          {
          latency.push([escapeHtml(label), name, ...[w.count, w.p50, w.p90, w.p99, w.p999, w.max].map(String)]);
        }
      }
    }
  }
  return table('summary', ['run', 'throughput', 'contention', 'failed cycles by code'], rows) + thresholdTable(series)
    + partTable(series, 'stages') + partTable(series, 'mix') +
    table('latency-table', ['run', 'operation', 'count', 'p50 µs', 'p90 µs', 'p99 µs', 'p99.9 µs', 'max µs'], latency);
}

/** Per stage or per mix entry, for runs with more than one: cycles, throughput, errors, acquire and cycle percentiles. */
function partTable(series: readonly Series[], what: 'stages' | 'mix'): string {
  const rows =
    series.flatMap(({ label, result }) => (result[what] !== undefined && result[what].length > 1 ? result[what] : []).map((p) => {
    const errors = Object.values(p.errors).reduce((a, b) => a + b, 0);
    const { acquire, cycle } = p.operations;
    return [escapeHtml(label), escapeHtml(p.name), String(p.cycles), p.throughput.toFixed(1), String(errors),
      ...[acquire.p50, acquire.p99, cycle.p50, cycle.p99].map(String)];
  }));
  const head = [what === 'stages' ? 'stage' : 'mix entry', 'cycles', 'cycles/s', 'errors', 'acquire p50 µs', 'acquire p99 µs',
    'cycle p50 µs', 'cycle p99 µs'];
  return rows.length === 0 ? '' : table(what === 'stages' ? 'by-stage' : 'by-mix', ['run', ...head], rows);
}

/** The thresholds each run was judged by, pass or fail; empty when no run has any (merges, older files). */
function thresholdTable(series: readonly Series[]): string {
  const rows = series.flatMap(({ label, result }) => (result.thresholds ?? []).map((t) => [
    escapeHtml(label), `<code>${escapeHtml(t.rule)}</code>${t.implicit === true ? ' <small>(default)</small>' : ''}`,
    escapeHtml(formatValue(t)),
    `<span class="${t.ok ? 'good' : 'bad'}">${t.ok ? 'pass' : 'fail'}</span>`
      + (t.failedSecond === undefined ? '' : ` <small>(first after ${t.failedSecond}s)</small>`)
      + (result.abortedBy === t.rule ? ' <small>(stopped the run)</small>' : ''),
  ]));
  return rows.length === 0 ? '' : table('thresholds', ['run', 'threshold', 'value', 'verdict'], rows);
}

/**
 * Per run: attempts per acquisition won, fairness over the contenders and the FIFO bound; empty when
 * no run recorded them (older files, using() in an open loop).
 */
export function contentionTable(series: readonly Series[]): string {
  const rows = series.filter(({ result }) => result.waits !== undefined || result.fairness !== undefined).map(({ label, result }) => {
    const { waits, fairness, fifo } = result;
    const won = waits === undefined ? 0 : waits.firstAttempt.count + waits.retried.count;
    const share = (n: number): string => (won === 0 ? '–' : `${((100 * n) / won).toFixed(1)}%`);
    return [
      `<b>${escapeHtml(label)}</b>`,
      waits === undefined ? '–' : `${share(waits.retried.count)} <small>(${waits.retried.count} of ${won})</small>`,
      waits === undefined ? '–' : `${waits.attempts.mean.toFixed(2)} <small>(max ${waits.attempts.max})</small>`,
      ...ATTEMPT_LABELS.map((_, i) => (waits === undefined ? '–' : share(waits.attempts.buckets[i] ?? 0))),
      fairness?.jain == null ? '–' : `${fairness.jain.toFixed(3)} <small>(${fairness.contenders} contenders)</small>`,
      fairness === undefined || fairness.contenders === 0 ? '–'
        : `${fairness.min}–${fairness.max} <small>(mean ${(fairness.acquisitions / fairness.contenders).toFixed(1)})</small>`,
      fifo === undefined ? '–' : `${(fifo.waitUs / 1000).toFixed(1)} ms`,
      fifo === undefined ? '–' : `${fifo.acquireP99Ratio.toFixed(2)}×`,
    ];
  });
  if (rows.length === 0) return '';
  return table('contention', ['run', 'retried', 'attempts (mean)', ...ATTEMPT_LABELS.map((l) => `${l} attempts`), "Jain's index",
    'won per contender', 'FIFO bound', 'acquire p99 ÷ FIFO'], rows);
}

const kVerdictClass: Readonly<Record<Row['verdict'], string>> =
  { regressed: 'bad', improved: 'good', noise: 'meh', inconclusive: 'meh', ok: '', unjudged: '', missing: 'meh' };

/** The comparison: one row per metric with both sides, their noise ranges, the change and the verdict. */
export function comparisonTable(comparison: Comparison): string {
  const side = (v: Row['base'], unit: Row['unit']): string => {
    if (v.runs.length === 0) return '–';
    const f = (n: number): string => (unit === 'µs' ? String(Math.round(n)) : n.toFixed(1));
    return `${f(v.value)} <small>(${f(v.low)}–${f(v.high)})</small>`;
  };
  const rows = comparison.rows.map((r) => [
    `${r.part === undefined ? '' : `${escapeHtml(partLabel(r.part))}: `}${r.op === null ? '' : `${r.op} `}${r.metric} (${r.unit})`,
      side(r.base, r.unit), side(r.new, r.unit),
    r.change === null ? '–' : `${r.change >= 0 ? '+' : ''}${(100 * r.change).toFixed(1)}%`, r.limit === null ? 'off' : `${r.limit}%`,
    `<span class="${kVerdictClass[r.verdict]}">${r.verdict}</span>`,
  ]);
  const verdict = { regressed: ['bad', 'regressed'], inconclusive: ['meh', 'inconclusive: too few runs a side'],
    ok: ['good', 'no regression beyond the limits'] }[comparison.verdict];
  const parts =
    comparison.parts === undefined ? '' : table('comparison-parts', ['mix entry or stage', 'verdict'], comparison.parts.map((p) => [
    escapeHtml(partLabel(p)), `<span class="${kVerdictClass[p.verdict]}">${p.verdict}</span>`,
  ]));
  return `<p class="verdict ${verdict[0]}">${verdict[1]}</p>` + parts +
    table('comparison', ['metric', 'base', 'new', 'change', 'limit', 'verdict'], rows) +
    `<p><small>noise: ${escapeHtml(comparison.noise)}</small></p>`
    + comparison.notes.map((n) => `<p><small>note: ${escapeHtml(n)}</small></p>`).join('');
}
