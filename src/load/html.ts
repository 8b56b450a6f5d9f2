import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describeHost } from './host.js';
import { decode, percentileCurve } from './histogram.js';
import { OP_NAMES, type RunResult } from './result.js';

const require = createRequire(import.meta.url);

// uPlot (MIT, ~50 KB minified, no dependencies) is inlined whole, so the report opens offline.
function asset(path: string): string {
  return readFileSync(require.resolve(path), 'utf8');
}

/** A self-contained HTML report: summary, a latency-percentile plot per operation, throughput per second. */
export function renderHtml(result: RunResult): string {
  const curves = OP_NAMES.filter((op) => result.operations[op].count > 0).map((op) => {
    const histogram = decode(result.operations[op].histogram);
    const curve = percentileCurve(histogram);
    histogram.destroy();
    return { op, ...curve };
  });
  const timeline = {
    x: result.timeline.map((p) => p.second),
    measured: result.timeline.map((p) => (p.warmup ? null : p.cycles)),
    warmup: result.timeline.map((p) => (p.warmup ? p.cycles : null)),
  };
  const rows = OP_NAMES.map((op) => result.operations[op]).map((s, i) => (s.count === 0 ? '' : `<tr><td>${OP_NAMES[i]!}</td>${[s.count, s.p50, s.p90, s.p99, s.p999, s.max].map((v) => `<td>${v}</td>`).join('')}</tr>`)).join('');
  const errors = Object.entries(result.errors).map(([code, n]) => `${code} ${n}`).join(', ') || 'none';
  const data = JSON.stringify({ curves, timeline }).replaceAll('<', '\\u003c');

  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>pipelock loadtest</title>
<style>${asset('uplot/dist/uPlot.min.css')}
body{font:14px system-ui,sans-serif;margin:24px;color:#222}table{border-collapse:collapse}td,th{padding:2px 10px;text-align:right}
td:first-child,th:first-child{text-align:left}.charts{display:flex;flex-wrap:wrap;gap:16px}code{font-size:12px;white-space:pre-wrap;word-break:break-all}</style></head>
<body><h1>pipelock loadtest</h1>
${result.hosts.map((h) => `<p><code>${escapeHtml(describeHost(h))}<br>${escapeHtml(JSON.stringify(h.flags))}</code></p>`).join('')}
<p>${result.runs} run(s), measured ${result.measuredSeconds.toFixed(1)} s${result.interrupted ? ' (interrupted)' : ''}:
<b>${result.throughput.toFixed(1)} cycles/s</b> (${result.cycles} cycles); errors: ${escapeHtml(errors)};
contention: ${result.contendedAcquires} acquires lost ${result.lostAttempts} attempts to another holder.</p>
<table><tr><th>latency (µs)</th><th>count</th><th>p50</th><th>p90</th><th>p99</th><th>p99.9</th><th>max</th></tr>${rows}</table>
<h2>Latency by percentile</h2><div class="charts" id="latency"></div>
<h2>Throughput over time</h2><div id="throughput"></div>
<script>${asset('uplot/dist/uPlot.iife.min.js')}</script>
<script>
const data = ${data};
const colors = { acquire: '#1f77b4', extend: '#9467bd', release: '#2ca02c', cycle: '#d62728' };
const nines = [1, 10, 100, 1000, 10000, 100000];
const percent = (v) => (100 * (1 - 1 / v)).toPrecision(6).replace(/\\.?0+$/, '') + '%';
for (const c of data.curves) {
  const el = document.createElement('div');
  document.getElementById('latency').append(el);
  new uPlot({
    title: c.op, width: 520, height: 300,
    scales: { x: { time: false, distr: 3, log: 10 } },
    axes: [{ splits: () => nines.filter((v) => v <= c.x[c.x.length - 1]), values: (u, ticks) => ticks.map(percent), label: 'percentile' }, { label: 'µs', size: 70 }],
    series: [{ label: 'percentile', value: (u, v) => v == null ? '' : percent(v) }, { label: c.op + ' µs', stroke: colors[c.op], width: 2, points: { show: true, size: 4 } }],
  }, [c.x, c.y], el);
}
new uPlot({
  title: 'completed cycles per second', width: 1000, height: 300,
  scales: { x: { time: false } },
  axes: [{ label: 'second' }, { label: 'cycles/s', size: 80 }],
  series: [{ label: 'second' }, { label: 'measured', stroke: '#1f77b4', width: 2 }, { label: 'warm-up', stroke: '#aaa', width: 2 }],
}, [data.timeline.x, data.timeline.measured, data.timeline.warmup], document.getElementById('throughput'));
</script></body></html>
`;
}

function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}
