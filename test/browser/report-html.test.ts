import '../helpers/setup.js';
import { execFile } from 'node:child_process';
import { mkdtemp, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compare } from '../../tools/src/load/compare.js';
import { renderHtml, renderReport } from '../../tools/src/load/html.js';
import { mergeResults, type RunResult } from '../../tools/src/load/result.js';
import type { SweepStep } from '../../tools/src/load/sweep-result.js';
import { syntheticRun } from '../helpers/results.js';
import { timed } from '../helpers/timeout.js';

// The HTML report opened in headless Chromium (Debian's chromium; scripts/ensure-chromium.sh installs
// it): each chart must have drawn each of its series, on the axes the report promises.
const test = suite('report in a browser');
const run = promisify(execFile);
const kBrowser = process.env.PIPELOCK_CHROMIUM ?? 'chromium';
const kFlags = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--hide-scrollbars', '--window-size=1280,2600', '--virtual-time-budget=10000'];

/**
 * Appended to the page under test (the report itself is unchanged): for every chart the report
 * registered, the canvas pixels in each series' colour, the scales, the plotted values, and where
 * p90 and p99 of the first series land; written into the DOM for --dump-dom to carry out.
 */
const kCheck = `<script>
setTimeout(() => {
  const rgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  const out = window.pipelockCharts.map(({ name, u, colors }) => {
    const { width, height } = u.ctx.canvas;
    const px = u.ctx.getImageData(0, 0, width, height).data;
    const pixels = colors.map((hex) => {
      const [r, g, b] = rgb(hex);
      let n = 0;
      for (let i = 0; i < px.length; i += 4) if (Math.abs(px[i] - r) < 10 && Math.abs(px[i + 1] - g) < 10 && Math.abs(px[i + 2] - b) < 10 && px[i + 3] > 200) n++;
      return n;
    });
    const xs = u.data[0];
    const first = u.data[1];
    const at = (x) => u.valToPos(first[xs.indexOf(x)], 'y');
    return {
      name, pixels, labels: u.axes.flatMap((a) => a._values ?? []), xDistr: u.scales.x.distr, yDistr: u.scales.y.distr, xs,
      values: u.data.slice(1).map((s) => s.filter((v) => v != null)),
      ticks: name.startsWith('latency') ? u.axes[0].values(u, [10, 100, 1000]) : null,
      p90to99: name.startsWith('latency') ? (at(10) - at(100)) / u.bbox.height * devicePixelRatio : null,
    };
  });
  const pre = document.createElement('pre');
  pre.id = 'pipelock-check';
  pre.textContent = JSON.stringify(out);
  document.body.append(pre);
}, 200);
</script>`;

interface Chart {
  name: string;
  pixels: number[];
  /** Every tick label drawn (uPlot's axis._values). */
  labels: (string | null)[];
  xDistr: number;
  yDistr: number;
  xs: number[];
  values: number[][];
  ticks: string[] | null;
  p90to99: number | null;
}

let dir = '';
test.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pipelock-browser-'));
});

/** Opens the page in headless Chromium; returns the charts as drawn and the DOM. */
async function open(name: string, html: string): Promise<{ charts: Chart[]; dom: string }> {
  const file = join(dir, name);
  await writeFile(file, html.replace('</body>', `${kCheck}</body>`));
  const { stdout } = await run(kBrowser, [...kFlags, '--dump-dom', pathToFileURL(file).href], { maxBuffer: 64 * 1024 * 1024, timeout: 60_000 });
  const check = /<pre id="pipelock-check">(.*?)<\/pre>/s.exec(stdout)?.[1];
  if (check === undefined) throw new Error(`${name}: the page's charts did not report (a script error?)`);
  return { charts: JSON.parse(check.replaceAll('&quot;', '"').replaceAll('&amp;', '&').replaceAll('&lt;', '<').replaceAll('&gt;', '>')) as Chart[], dom: stdout };
}

function checkDrawn(charts: readonly Chart[], series: number): void {
  for (const chart of charts) {
    assert.ok(chart.labels.length > 0 && chart.labels.every((l) => l === null || !/null|undefined|NaN/.test(l)), `${chart.name}: tick labels ${JSON.stringify(chart.labels)}`);
    for (const [i, pixels] of chart.pixels.entries()) assert.ok(pixels >= 30, `${chart.name}: series ${i + 1} drew ${pixels} pixels in its colour`);
    if (chart.name.startsWith('latency')) {
      assert.is(chart.pixels.length, series, chart.name);
      // HdrHistogram's axes: log percentile ("nines") and log latency.
      assert.is(chart.xDistr, 3, `${chart.name}: x axis is logarithmic`);
      assert.is(chart.yDistr, 3, `${chart.name}: latency axis is logarithmic`);
      assert.equal(chart.ticks, ['90%', '99%', '99.9%'], chart.name);
      // On a linear axis under a ~200 ms max, p90 (3 ms) and p99 (10 ms) would sit a few pixels apart.
      assert.ok(chart.p90to99! > 0.15, `${chart.name}: p90 → p99 spans ${chart.p90to99} of the plot height`);
    }
  }
}

test('one run: a chart per operation, throughput without the partial last second, settings as a table', timed(240_000, async () => {
  const result = syntheticRun({ throughput: 1000, seconds: 10, errors: { ERR_PIPELOCK_RESOURCE_LOCKED: 200, ERR_PIPELOCK_UNAVAILABLE: 100 } });
  const { charts, dom } = await open('run.html', renderHtml(result));
  assert.equal(charts.map((c) => c.name), ['latency:acquire', 'latency:release', 'latency:cycle', 'throughput', 'failures']);
  checkDrawn(charts, 1);
  const throughput = charts.find((c) => c.name === 'throughput')!;
  // 2 s warm-up + 10 s measured: second 13 is the stub after the end (3 cycles), not a rate.
  assert.is(Math.max(...throughput.xs), 12);
  assert.ok(Math.min(...throughput.values.flat()) > 900, `lowest plotted ${Math.min(...throughput.values.flat())} cycles/s`);
  const settings = /<table id="settings">(.*?)<\/table>/s.exec(dom)?.[1] ?? '';
  for (const flag of ['--operation', '--workers', '--concurrency', '--duration', '--lock-duration', 'measured window']) assert.ok(settings.includes(flag), `settings table has ${flag}`);
  assert.not.ok(dom.includes('{&quot;') || dom.includes('{"servers"'), 'no raw JSON of the flags');
  assert.match(dom, /ERR_PIPELOCK_RESOURCE_LOCKED 200<br>ERR_PIPELOCK_UNAVAILABLE 100/);
}));

test('compare: both sides overlaid in every latency chart, the verdict table on top; a screenshot for people', timed(240_000, async () => {
  const base = syntheticRun();
  const next = syntheticRun({ scaleMs: 1.3, throughput: 900 });
  // Three runs a side: with one, report compare gives no verdict (inconclusive) rather than cry wolf.
  const sides = (name: string, result: typeof base): { files: string[]; results: (typeof base)[] } => ({ files: [1, 2, 3].map((i) => `${name}-${i}.json`), results: [result, result, result] });
  const page = renderReport({ title: 'pipelock report compare', series: [{ label: 'base', result: base }, { label: 'new', result: next }], comparison: compare(sides('base', base), sides('new', next)) });
  const { charts, dom } = await open('compare.html', page);
  checkDrawn(charts, 2);
  // Neither side failed a cycle: no empty failures chart, a line saying so.
  assert.not.ok(charts.some((c) => c.name === 'failures'));
  assert.match(dom, /No failed cycles\./);
  assert.match(dom, /<table id="comparison">.*acquire p99 \(µs\).*regressed/s);
  const png = join(dir, 'compare.png');
  await run(kBrowser, [...kFlags, `--screenshot=${png}`, pathToFileURL(join(dir, 'compare.html')).href], { timeout: 60_000 });
  assert.ok((await stat(png)).size > 50_000, 'screenshot written');
  console.log(`  screenshot: ${png}`);
}));

test('merged runs from two machines: one report, hosts side by side; a file from before `partial` still loses its stub second', timed(240_000, async () => {
  const merged = mergeResults([syntheticRun(), syntheticRun({ windowFrom: Date.UTC(2026, 0, 1) + 10 })]);
  const old = { ...merged, timeline: merged.timeline.map(({ partial: _, ...point }) => point) };
  const { charts, dom } = await open('merged.html', renderHtml(old));
  checkDrawn(charts, 1);
  assert.is(Math.max(...charts.find((c) => c.name === 'throughput')!.xs), 12);
  assert.equal(charts.map((c) => c.name), ['latency:acquire', 'latency:release', 'latency:cycle', 'throughput']);
  assert.match(dom, /<th>2 runs merged #1<\/th><th>2 runs merged #2<\/th>/);
}));

/** A sweep's run: the knee's run with the curve of every step; `p99s` µs per step, the knee the last step that held. */
function sweepRun(rates: readonly number[], p99s: readonly number[], knee: number | null): RunResult {
  const summary = (p99: number): SweepStep['acquire'] => ({ count: 1000, mean: p99 / 4, p50: p99 / 5, p90: p99 / 2, p99, p999: p99 * 1.5, max: p99 * 2 });
  const steps: SweepStep[] = rates.map((rate, i) => ({
    rate, ok: knee !== null && rate <= knee, throughput: Math.min(rate, 520) * 0.99, cycles: rate * 10, errors: 0, lateShare: 0, acquire: summary(p99s[i]!), cycle: summary(p99s[i]! * 1.2),
  }));
  return { ...syntheticRun({ flags: { rate: knee ?? rates[0]! } }), sweep: { bounds: ['acquire.p99<10ms'], knee, steps } };
}

test('a sweep: its chart draws completed cycles/s and acquire p99 at every offered rate, the knee in its title; the other charts still draw', timed(240_000, async () => {
  const rates = [200, 300, 450, 562, 675];
  const p99s = [900, 1200, 4000, 15000, 60000];
  const { charts, dom } = await open('sweep.html', renderHtml(sweepRun(rates, p99s, 450)));
  assert.equal(charts.map((c) => c.name), ['latency:acquire', 'latency:release', 'latency:cycle', 'sweep', 'throughput']);
  checkDrawn(charts, 1);
  const sweep = charts.find((c) => c.name === 'sweep')!;
  assert.is(sweep.pixels.length, 2, 'two series: completed cycles/s and acquire p99');
  assert.equal(sweep.xs, rates, 'one point per step, at its offered rate');
  assert.equal(sweep.values, [rates.map((r) => Math.min(r, 520) * 0.99), p99s]);
  assert.ok(sweep.labels.some((l) => l !== null && / ms$/.test(l)), `the p99 axis reads in ms: ${JSON.stringify(sweep.labels)}`);
  assert.match(dom, /capacity sweep: knee 450\/s/);
  assert.match(dom, /<h2>Capacity sweep<\/h2>/);
}));

test('a sweep whose first step failed: no knee, both series still drawn', timed(240_000, async () => {
  const { charts, dom } = await open('sweep-none.html', renderHtml(sweepRun([2000, 3000], [20000, 40000], null)));
  const sweep = charts.find((c) => c.name === 'sweep');
  assert.ok(sweep !== undefined, 'the sweep chart is drawn');
  checkDrawn([sweep], 1);
  assert.is(sweep.pixels.length, 2);
  assert.not.match(dom, /knee \d/);
}));

test.run();
