import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Comparison } from './compare.js';
import { decode, percentileCurve } from './histogram.js';
import { comparisonTable, contentionTable, escapeHtml, settingsTable, summaryTable, type Series } from './html-tables.js';
import { OP_NAMES, type RunResult } from './result.js';

const require = createRequire(import.meta.url);

// uPlot (MIT, ~50 KB minified, no dependencies) is inlined whole, so the report opens offline.
function asset(path: string): string {
  return readFileSync(require.resolve(path), 'utf8');
}

export interface ReportPage {
  readonly title: string;
  readonly series: readonly Series[];
  readonly comparison?: Comparison;
}

/** The report of one run (or of one merge of runs). */
export function renderHtml(result: RunResult): string {
  return renderReport({ title: 'pipelock loadtest', series: [{ label: runLabel(result), result }] });
}

/**
 * What a run measured, as its legend and column head say it: "mutex acquire-release, concurrency 16,
 * 10000 keys" (or "…, 2000/s open loop, …"); a merge of runs is "N runs merged".
 */
export function runLabel(result: RunResult): string {
  if (result.runs !== 1) return `${result.runs} runs merged`;
  const flags = result.hosts[0]?.flags;
  if (flags === undefined) return 'run';
  const text = (value: unknown): string => (typeof value === 'string' || typeof value === 'number' ? String(value) : '?');
  const rate = Number(flags.rate);
  const load = rate > 0 ? `${text(flags.rate)}/s open loop` : `concurrency ${text(flags.concurrency)}`;
  return `${text(flags.kind ?? 'mutex')} ${text(flags.operation)}, ${load}, ${text(flags.keys)} keys`;
}

/** The whole seconds of a timeline; files written before `partial` was recorded lose their stub past the planned end. */
function whole(result: RunResult): RunResult['timeline'] {
  const flags = result.hosts[0]?.flags;
  const plannedMs = Number(flags?.warmupMs) + Number(flags?.durationMs);
  return result.timeline.filter((p) => !(p.partial ?? p.second * 1000 > plannedMs));
}

/** What the page's script draws: all plain numbers, nulls where a run has no value. */
function chartData(series: readonly Series[]): unknown {
  const curves = (op: string, pick: (result: RunResult) => { count: number; histogram: string }
    | undefined): { op: string; x: number[]; ys: (number | null)[][] } => {
    let x: number[] = [];
    const ys = series.map((s) => {
      const summary = pick(s.result);
      if (summary === undefined || summary.count === 0) return null;
      const histogram = decode(summary.histogram);
      const curve = percentileCurve(histogram);
      histogram.destroy();
      x = curve.x; // the same grid for every histogram
      return curve.y;
    });
    return { op, x, ys: ys.map((y) => y ?? x.map(() => null)) };
  };
  const latency =
    OP_NAMES.filter((op) => series.some((s) => s.result.operations[op].count > 0)).map((op) => curves(op, (r) => r.operations[op]));
  // Next to acquire: the acquisitions that lost to a holder and retried, where the tail of a hot lock is.
  if (series.some((s) => (s.result.waits?.retried.count ?? 0) > 0))
    latency.splice(1, 0, curves('acquire retried', (r) => r.waits?.retried));
  // Partial seconds (the stub after the run's end, a stopped run's last second) are not rates: left out.
  const seconds = [...new Set(series.flatMap((s) => whole(s.result).map((p) => p.second)))].sort((a, b) => a - b);
  const column = (s: Series, pick: (p: RunResult['timeline'][number]) => number | null): (number | null)[] => {
    const at = new Map(whole(s.result).map((p) => [p.second, pick(p)]));
    return seconds.map((second) => at.get(second) ?? null);
  };
  const sweep = series.find((s) => s.result.sweep !== undefined)?.result.sweep;
  return {
    labels: series.map((s) => s.label),
    sweep: sweep === undefined ? null : { knee: sweep.knee, rate: sweep.steps.map((s) => s.rate),
      throughput: sweep.steps.map((s) => s.throughput), p99: sweep.steps.map((s) => s.acquire.p99) },
    latency,
    timeline: {
      x: seconds,
      measured: series.map((s) => column(s, (p) => (p.warmup ? null : p.cycles))),
      warmup: series.map((s) => column(s, (p) => (p.warmup ? p.cycles : null))),
      errors: series.map((s) => column(s, (p) => p.errors)),
    },
  };
}

/** The contention section, with how to read it; nothing when no run recorded contention. */
function contention(series: readonly Series[]): string {
  const table = contentionTable(series);
  if (table === '') return '';
  return `<h2>Contention</h2><p><small>Retried: acquisitions won after more than one attempt (a first-attempt win may still have `
    + `queued behind ` +
    `its own process's callers, sending nothing until its turn). Jain's index over the acquisitions each contender `
      + `(closed-loop slot) won: ` +
    `1 when all won equally, 1/n when one won everything. FIFO bound, with fewer keys than contenders: contenders ÷ handoffs per second, ` +
    `the wait every acquisition would see in a perfect queue.</small></p>${table}`;
}

/**
 * A self-contained page: the settings as a table, a summary, and per operation the latency by
 * percentile with every run overlaid, on HdrHistogram's axes (log latency against a log "nines" axis,
 * as its plotFiles.html draws them); then throughput and failures over time.
 */
const sweepSection = '<h2>Capacity sweep</h2><p><small>Completed cycles/s and acquire p99 by offered rate; the knee is the highest rate '
  + 'that held every bound.</small></p><div id="sweep"></div>';

export function renderReport(page: ReportPage): string {
  const data = JSON.stringify(chartData(page.series)).replaceAll('<', '\\u003c');
  const failures = page.series.some((s) => s.result.timeline.some((p) => p.errors > 0));
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(page.title)}</title>
<style>${asset('uplot/dist/uPlot.min.css')}
body{font:14px system-ui,sans-serif;margin:24px;color:#222}table{border-collapse:collapse;margin:8px 0 16px}
td,th{padding:2px 10px;text-align:right;vertical-align:top;border-bottom:1px solid #eee}
td:first-child,th:first-child{text-align:left}.charts{display:flex;flex-wrap:wrap;gap:16px}small{color:#666}
.bad{color:#c00;font-weight:bold}.good{color:#080}.meh{color:#a60}
.verdict{font-size:18px}</style></head>
<body><h1>${escapeHtml(page.title)}</h1>
${page.comparison === undefined ? '' : `<h2>Comparison</h2>${comparisonTable(page.comparison)}`}
<h2>Summary</h2>${summaryTable(page.series)}
${contention(page.series)}
<h2>Settings</h2>${settingsTable(page.series)}
${page.series.some((s) => s.result.sweep !== undefined) ? sweepSection : ''}
<h2>Latency by percentile</h2>
<p><small>Log axes, as HdrHistogram plots them: each step right adds a nine (90%, 99%, 99.9%, …).</small></p>
<div class="charts" id="latency"></div>
<h2>Throughput over time</h2><div id="throughput"></div>
<h2>Failures over time</h2>
<p><small>${failures ? 'Failed cycles per second; by error code in the summary above.' : 'No failed cycles.'}</small></p>
<div id="failures"></div>
<script>${asset('uplot/dist/uPlot.iife.min.js')}</script>
<script>
const data = ${data};
const palette = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf'];
const color = (i) => palette[i % palette.length];
// Every chart drawn, for whoever checks the page (test/browser).
window.pipelockCharts = [];
const nines = [1, 10, 100, 1000, 10000, 100000];
const percent = (v) => (100 * (1 - 1 / v)).toPrecision(6).replace(/\\.?0+$/, '') + '%';
const us = (v) => v >= 1e6 ? (v / 1e6) + ' s' : v >= 1e3 ? (v / 1e3) + ' ms' : v + ' µs';
for (const c of data.latency) {
  const el = document.createElement('div');
  document.getElementById('latency').append(el);
  const u = new uPlot({
    title: c.op + ' latency by percentile', width: 560, height: 320, legend: { live: false },
    scales: { x: { time: false, distr: 3, log: 10 }, y: { distr: 3, log: 10 } },
    axes: [
      { splits: () => nines.filter((v) => v <= c.x[c.x.length - 1]), values: (u, ticks) => ticks.map(percent), label: 'percentile' },
      // A log axis passes null for the minor ticks it leaves unlabelled.
      { label: 'latency', size: 70, values: (u, ticks) => ticks.map((v) => v == null ? '' : us(v)) },
    ],
    series: [{ label: 'percentile', value: (u, v) => v == null ? '' : percent(v) },
      ...data.labels.map((label, i) => ({
        label, stroke: color(i), width: 2, points: { show: true, size: 4 }, value: (u, v) => v == null ? '' : us(v),
      }))],
  }, [c.x, ...c.ys], el);
  window.pipelockCharts.push({ name: 'latency:' + c.op, u, colors: data.labels.map((_, i) => color(i)) });
}
const timeChart = (id, title, unit, columns, dashed) => {
  const series = [{ label: 'second' }];
  const cols = [data.timeline.x];
  const colors = [];
  columns.forEach(([suffix, values, dash], k) => values.forEach((v, i) => {
    if (v.every((n) => n == null)) return;
    series.push({ label: data.labels[i] + suffix, stroke: dash ? '#999' : color(i), width: 2, dash: dash ? [6, 4] : undefined });
    cols.push(v);
    colors.push(dash ? '#999999' : color(i));
  }));
  const u = new uPlot({
    title, width: 1100, height: 280, legend: { live: false }, scales: { x: { time: false } },
    axes: [{ label: 'second since start', incrs: [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600] }, { label: unit, size: 80 }],
    series,
  }, cols, document.getElementById(id));
  window.pipelockCharts.push({ name: id, u, colors });
};
if (data.sweep !== null) {
  const u = new uPlot({
    title: 'capacity sweep' + (data.sweep.knee === null ? '' : ': knee ' + data.sweep.knee + '/s'),
    width: 1100, height: 300, legend: { live: false },
    scales: { x: { time: false }, p99: {} },
    axes: [{ label: 'offered cycles/s' }, { label: 'completed cycles/s', size: 80 },
      { side: 1, scale: 'p99', label: 'acquire p99', size: 80, values: (u, ticks) => ticks.map((v) => v == null ? '' : us(v)) }],
    series: [{ label: 'offered' }, { label: 'completed cycles/s', stroke: color(0), width: 2, points: { show: true } },
      { label: 'acquire p99', stroke: color(1), width: 2, scale: 'p99', points: { show: true }, value: (u, v) => v == null ? '' : us(v) }],
  }, [data.sweep.rate, data.sweep.throughput, data.sweep.p99], document.getElementById('sweep'));
  window.pipelockCharts.push({ name: 'sweep', u, colors: [color(0), color(1)] });
}
timeChart('throughput', 'completed cycles per second', 'cycles/s',
  [['', data.timeline.measured, false], [' (warm-up)', data.timeline.warmup, true]]);
if (data.timeline.errors.some((v) => v.some((n) => n > 0))) {
  timeChart('failures', 'failed cycles per second', 'failures/s', [['', data.timeline.errors, false]]);
}
</script></body></html>
`;
}
