import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseCompareArgs, parseThresholds } from '../../tools/src/cli/compare.js';
import { formatComparison, markdownComparison } from '../../tools/src/cli/compare-format.js';
import { UsageError } from '../../tools/src/cli/errors.js';
import { renderReport } from '../../tools/src/load/html.js';
import { compare, IncomparableError, kDefaultThresholds, type Comparison, type Row } from '../../tools/src/load/compare.js';
import { percentileInterval, separationChance, throughputInterval } from '../../tools/src/load/noise.js';
import type { PartResult, RunResult } from '../../tools/src/load/result.js';
import { syntheticRun, type RunShape } from '../helpers/results.js';
import { seeded } from '../helpers/seeded.js';

const test = suite('report compare');

function side(...results: RunResult[]): { files: string[]; results: RunResult[] } {
  return { files: results.map((_, i) => `run-${i + 1}.json`), results };
}

function rowOf(c: Comparison, name: string): Row {
  const found = c.rows.find((r) => (r.op === null ? r.metric : `${r.op} ${r.metric}`) === name);
  if (found === undefined) throw new Error(`no row ${name}`);
  return found;
}

test('the same run on both sides: every metric ok, no change', () => {
  const c = compare(side(syntheticRun()), side(syntheticRun()));
  assert.is(c.verdict, 'ok');
  assert.ok(c.rows.every((r) => r.verdict === 'ok'), JSON.stringify(c.rows.map((r) => r.verdict)));
  assert.is(rowOf(c, 'acquire p99').change, 0);
  // extend has no values in acquire-release runs: no rows for it.
  assert.not.ok(c.rows.some((r) => r.op === 'extend'));
});

test('one run against one: latency 30% worse with 20,000 values is inconclusive (no verdict); within its limit it is ok', () => {
  const c = compare(side(syntheticRun()), side(syntheticRun({ scaleMs: 1.3 })));
  assert.is(c.verdict, 'inconclusive');
  const p99 = rowOf(c, 'acquire p99');
  assert.is(p99.verdict, 'inconclusive');
  assert.ok(Math.abs(p99.change! - 0.3) < 0.01, String(p99.change));
  const loose = compare(side(syntheticRun()), side(syntheticRun({ scaleMs: 1.3 })), parseThresholds('p50=40%,p90=40%,p99=40%,p99.9=40%'));
  assert.is(loose.verdict, 'ok');
});

test('one run against one: past the limit but inside the sampling range is noise, not a regression', () => {
  // 300 values: p99.9 is the largest one or two, its range spans most of the tail.
  const c = compare(side(syntheticRun({ samples: 300 })), side(syntheticRun({ samples: 300, scaleMs: 1.3 })), parseThresholds('p50=off,p90=off,p99=off,p99.9=10%'));
  assert.is(rowOf(c, 'acquire p99.9').verdict, 'noise');
  assert.is(c.verdict, 'ok');
});

test('throughput: down more than its limit and beyond the per-second spread regresses; a jittery run is noise', () => {
  assert.is(rowOf(compare(side(syntheticRun()), side(syntheticRun({ throughput: 900 }))), 'throughput').verdict, 'inconclusive');
  const three = (throughput: number): ReturnType<typeof side> => side(...[0, 1, 2].map(() => syntheticRun({ throughput })));
  assert.is(rowOf(compare(three(1000), three(900)), 'throughput').verdict, 'regressed');
  assert.is(rowOf(compare(side(syntheticRun()), side(syntheticRun({ throughput: 1100 }))), 'throughput').verdict, 'improved');
  const jittery = compare(side(syntheticRun({ jitter: 0.5 })), side(syntheticRun({ throughput: 900, jitter: 0.5 })));
  assert.is(rowOf(jittery, 'throughput').verdict, 'noise');
});

test('several runs a side: medians compared; overlapping repetitions are noise, separated ones regress', () => {
  const base = side(syntheticRun({ scaleMs: 1 }), syntheticRun({ scaleMs: 1.1 }), syntheticRun({ scaleMs: 0.95 }));
  const overlapping = compare(base, side(syntheticRun({ scaleMs: 1.25 }), syntheticRun({ scaleMs: 1.05 }), syntheticRun({ scaleMs: 1.3 })), parseThresholds('p99=10%'));
  const p99 = rowOf(overlapping, 'acquire p99');
  assert.is(p99.base.runs.length, 3);
  assert.ok(Math.abs(p99.change! - 0.25) < 0.01, String(p99.change)); // medians 1.0 → 1.25
  assert.is(p99.verdict, 'noise');
  const separated = compare(base, side(syntheticRun({ scaleMs: 1.25 }), syntheticRun({ scaleMs: 1.2 }), syntheticRun({ scaleMs: 1.3 })), parseThresholds('p99=10%'));
  assert.is(rowOf(separated, 'acquire p99').verdict, 'regressed');
  // Two a side: every new run worse by chance 1 in 6: no verdict.
  const two = compare(side(...base.results.slice(0, 2)), side(...separated.new.files.slice(0, 2).map((_, i) => syntheticRun({ scaleMs: [1.25, 1.2][i]! }))), parseThresholds('p99=10%'));
  assert.is(rowOf(two, 'acquire p99').verdict, 'inconclusive');
  assert.is(two.verdict, 'inconclusive');
  assert.ok(separated.noise.includes('5.0%'), separated.noise);
});

test('limits: op.metric beats metric, off shows without judging, names not given keep their default', () => {
  const t = parseThresholds('p99=50%,acquire.p99=5%,p99.9=off');
  assert.is(t.p99, 50);
  assert.is(t['acquire.p99'], 5);
  assert.is(t['p99.9'], null);
  assert.is(t.throughput, kDefaultThresholds.throughput);
  const c = compare(side(syntheticRun()), side(syntheticRun({ scaleMs: 1.3 })), parseThresholds('p50=off,p90=off,p99=50%,acquire.p99=5%,p99.9=off'));
  assert.is(rowOf(c, 'acquire p99').verdict, 'inconclusive');
  assert.is(rowOf(c, 'release p99').verdict, 'ok');
  assert.is(rowOf(c, 'cycle p99.9').verdict, 'unjudged');
});

test('incomparable runs: other load settings, a stopped run, a different number of merged machines', () => {
  const cases: [RunShape, string][] = [[{ flags: { workers: 4 } }, '--workers'], [{ flags: { operation: 'using' } }, '--operation'],
    [{ flags: { masters: 3 } }, '--masters/--servers'], [{ flags: { holdMs: 5 } }, '--hold'], [{ interrupted: true }, 'interrupted']];
  for (const [shape, setting] of cases) {
    try {
      compare(side(syntheticRun()), side(syntheticRun(shape)));
      assert.unreachable(`${setting} should make the runs incomparable`);
    } catch (error) {
      assert.instance(error, IncomparableError);
      assert.is((error as IncomparableError).setting, setting);
      assert.is((error as IncomparableError).code, 'ERR_PIPELOCK_INCOMPARABLE');
      assert.ok((error as Error).message.startsWith('run-1.json'), (error as Error).message);
    }
  }
  // A different measured duration is allowed, and said.
  const notes = compare(side(syntheticRun()), side(syntheticRun({ seconds: 20 }))).notes;
  assert.ok(notes.some((n) => n.startsWith('measured duration differs')), notes.join('\n'));
});

test('noise ranges: a percentile range holds the value and narrows as values grow; throughput spread from whole seconds', () => {
  const small = percentileInterval(syntheticRun({ samples: 1_000 }), 'acquire', 99);
  const large = percentileInterval(syntheticRun({ samples: 100_000 }), 'acquire', 99);
  assert.ok(small.low <= small.value && small.value <= small.high);
  assert.ok((large.high - large.low) / large.value < (small.high - small.low) / small.value, `${JSON.stringify(small)} ${JSON.stringify(large)}`);
  const steady = throughputInterval(syntheticRun({ jitter: 0 }));
  assert.equal([steady.low, steady.high], [1000, 1000]);
  // The trailing stub second (3 cycles) is partial: had it counted, the spread would be huge.
  assert.ok(throughputInterval(syntheticRun({ jitter: 0.02 })).high < 1020);
  assert.is(separationChance(3, 3), 1 / 20);
  assert.is(separationChance(5, 5), 1 / 252);
});

test('markdown: a verdict line, one table row per metric, pipes escaped', () => {
  const md = markdownComparison(compare(side(syntheticRun()), side(syntheticRun({ scaleMs: 1.3 }))));
  assert.ok(md.startsWith('### pipelock report compare: ❔ INCONCLUSIVE, too few runs a side to tell from run-to-run noise: acquire p50 +'), md.slice(0, 120));
  assert.ok(md.includes('| acquire p99 (µs) | 9991 ('), md);
  assert.is(md.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| metric') && !l.startsWith('| ---')).length, 1 + 3 * 4);
});

/** Uniform in [-1, 1) from a seeded generator: the same noise on every run of the test. */
function noise(seed: number): () => number {
  const next = seeded(seed);
  return () => next() * 2 - 1;
}

test('3 runs a side: 10 same-build comparisons with run-to-run noise pass; a run beside two busy loops is caught', () => {
  // Same build: each run's latencies and throughput off by up to ±8 % (a quiet machine's run-to-run
  // spread); beside two busy loops on 2 cores the client gets about half the CPU.
  const next = noise(41);
  const run = (slow = 1): RunResult => syntheticRun({ samples: 2_000, scaleMs: slow * (1 + 0.08 * next()), throughput: (1000 / slow) * (1 + 0.08 * next()) });
  const three = (slow = 1): ReturnType<typeof side> => side(run(slow), run(slow), run(slow));
  for (let i = 0; i < 10; i++) {
    const c = compare(three(), three());
    assert.is(c.verdict, 'ok', `comparison ${i + 1}: ${c.rows.filter((r) => r.verdict !== 'ok').map((r) => `${r.op ?? ''} ${r.metric} ${r.verdict}`).join(', ')}`);
  }
  const busy = compare(three(), three(1.8));
  assert.is(busy.verdict, 'regressed');
  assert.is(rowOf(busy, 'throughput').verdict, 'regressed');
  assert.is(rowOf(busy, 'cycle p99').verdict, 'regressed');
});

/** A scenario run: the whole from one synthetic run, its mix entries (and stages) from others, by name. */
function scenario(whole: RunResult, mix: Record<string, RunResult>, stages: Record<string, RunResult> = {}): RunResult {
  const parts = (of: Record<string, RunResult>): PartResult[] => Object.entries(of).map(([name, r]) => ({ name, cycles: r.cycles, throughput: r.throughput, errors: r.errors, operations: r.operations }));
  return { ...whole, mix: parts(mix), ...(Object.keys(stages).length > 0 ? { stages: parts(stages) } : {}) };
}

test('scenario runs: each mix entry and stage compared on its own, with a verdict each; one entry worse regresses the comparison', () => {
  const three = (hot: number, ramp: number): ReturnType<typeof side> => side(...[0, 1, 2].map(() => scenario(syntheticRun(),
    { orders: syntheticRun(), hot: syntheticRun({ scaleMs: hot }) }, { '2s at 200/s': syntheticRun(), '2s ramp to 400/s': syntheticRun({ throughput: ramp }) })));
  const c = compare(three(1, 1000), three(1.5, 800));
  assert.equal(c.parts, [
    { of: 'mix', name: 'orders', verdict: 'ok' }, { of: 'mix', name: 'hot', verdict: 'regressed' },
    { of: 'stages', name: '2s at 200/s', verdict: 'ok' }, { of: 'stages', name: '2s ramp to 400/s', verdict: 'regressed' },
  ]);
  assert.is(c.verdict, 'regressed');
  // The whole run did not change: its own rows stay ok.
  assert.ok(c.rows.filter((r) => r.part === undefined).every((r) => r.verdict === 'ok'));
  const hot = c.rows.find((r) => r.part?.name === 'hot' && r.op === 'acquire' && r.metric === 'p99')!;
  assert.is(hot.verdict, 'regressed');
  assert.ok(Math.abs(hot.change! - 0.5) < 0.01, String(hot.change));
  assert.is(c.rows.find((r) => r.part?.name === '2s ramp to 400/s' && r.metric === 'throughput')!.verdict, 'regressed');
  const table = formatComparison(c);
  assert.match(table, /REGRESSED: .*hot: acquire p50 \+50\.0%/);
  assert.match(table, /by entry and stage: orders ok, hot regressed, stage 2s at 200\/s ok, stage 2s ramp to 400\/s regressed/);
  assert.match(markdownComparison(c), /By entry and stage: orders ✅ ok, hot ❌ regressed/);
  assert.match(markdownComparison(c), /\| hot: acquire p99 \(µs\) \|/);
  const html = renderReport({ title: 'compare', series: [], comparison: c });
  assert.match(html, /<table id="comparison-parts">.*<td>hot<\/td><td><span class="bad">regressed<\/span><\/td>/s);
  assert.match(html, /<td>hot: acquire p99 \(µs\)<\/td>/);
  // One run a side: the entry is inconclusive, not regressed.
  const one = compare(side(scenario(syntheticRun(), { orders: syntheticRun(), hot: syntheticRun() })), side(scenario(syntheticRun(), { orders: syntheticRun(), hot: syntheticRun({ scaleMs: 1.5 }) })));
  assert.equal(one.parts?.map((p) => p.verdict), ['ok', 'inconclusive']);
});

test('scenario runs: entries that differ between runs are noted and the runs compared whole; runs from flags (one entry) get no parts', () => {
  const c = compare(side(scenario(syntheticRun(), { orders: syntheticRun(), hot: syntheticRun() })), side(scenario(syntheticRun(), { orders: syntheticRun(), cold: syntheticRun() })));
  assert.is(c.parts, undefined);
  assert.ok(c.rows.every((r) => r.part === undefined));
  assert.match(c.notes.join('\n'), /mix entries differ between runs \(orders, hot \| orders, cold\)/);
  const flags = compare(side(scenario(syntheticRun(), { 'acquire-release': syntheticRun() })), side(scenario(syntheticRun(), { 'acquire-release': syntheticRun() })));
  assert.is(flags.parts, undefined);
  assert.equal(flags.notes, []);
});

test('arguments: BASE NEW, or --base/--new repeated; outputs to files or - (stdout)', () => {
  assert.equal(parseCompareArgs(['a1.json,a2.json,a3.json', 'b1.json,b2.json,b3.json']).valueOf(), {
    base: ['a1.json', 'a2.json', 'a3.json'], new: ['b1.json', 'b2.json', 'b3.json'], thresholds: kDefaultThresholds, json: undefined, markdown: undefined, html: undefined,
  });
  assert.equal(parseCompareArgs(['a.json', 'b.json']), { base: ['a.json'], new: ['b.json'], thresholds: kDefaultThresholds, json: undefined, markdown: undefined, html: undefined });
  const several = parseCompareArgs(['--base', 'a1', '--base', 'a2', '--new', 'b1', '--markdown', '-', '--max-regression', 'p99=10%']);
  assert.ok(several !== 'help');
  assert.equal([several.base, several.new, several.markdown, several.thresholds.p99], [['a1', 'a2'], ['b1'], '-', 10]);
  assert.is(parseCompareArgs(['--help']), 'help');
});

// [args, the flag or argument named, a fragment of the message]
const BAD: [string[], string, string][] = [
  [[], '--base', 'needs at least one result file'],
  [['a.json'], 'report compare', 'takes two result files'],
  [['a.json', 'b.json', 'c.json'], 'report compare', 'takes two result files'],
  [['a.json', 'b.json', '--new', 'c.json'], 'report compare', 'not both'],
  [['--base', 'a.json'], '--new', 'needs at least one result file'],
  [['a.json', 'a.json'], '--new', 'must not name a result file twice'],
  [['a1.json,a1.json', 'b.json'], '--base', 'must not name a result file twice'],
  [['a1.json,', 'b.json'], '--base', 'must name a file'],
  [['--base', 'a', '--base', 'a', '--new', 'b'], '--base', 'must not name a result file twice'],
  [['a', 'b', '--max-regression', 'p99'], '--max-regression', 'METRIC=N%'],
  [['a', 'b', '--max-regression', 'p95=10%'], '--max-regression', 'names a metric that is not one of'],
  [['a', 'b', '--max-regression', 'lock.p99=10%'], '--max-regression', 'names an operation that is not one of'],
  [['a', 'b', '--max-regression', 'acquire.throughput=10%'], '--max-regression', 'names a metric'],
  [['a', 'b', '--max-regression', 'p99=10'], '--max-regression', 'with the %'],
  [['a', 'b', '--max-regression', 'p99=-5%'], '--max-regression', 'from 0% to 1000%'],
  [['a', 'b', '--max-regression', 'p99=10%,p99=20%'], '--max-regression', 'names p99 more than once'],
  [['a', 'b', '--max-regression', 'x', '--max-regression', 'y'], '--max-regression', 'is given more than once'],
  [['a', 'b', '--json', '-', '--markdown', '-'], '--markdown', 'conflicts with --json: both name stdout'],
  [['a', 'b', '--html', '-'], '--html', 'must name a file'],
  [['a', 'b', '--json', ''], '--json', 'must name a file'],
  [['a', 'b', '--bogus'], '--bogus', 'is not a report compare flag'],
];
for (const [args, flag, fragment] of BAD) {
  test(`report compare ${args.join(' ')} → UsageError naming ${flag}`, () => {
    try {
      parseCompareArgs(args);
    } catch (error) {
      assert.instance(error, UsageError);
      assert.is((error as UsageError).flag, flag);
      assert.ok((error as Error).message.startsWith(flag), (error as Error).message);
      assert.ok((error as Error).message.includes(fragment), `${(error as Error).message} should include ${fragment}`);
      return;
    }
    assert.unreachable('expected a UsageError');
  });
}

test.run();
