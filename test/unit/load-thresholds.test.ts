import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { UsageError } from '../../tools/src/cli/errors.js';
import { parseLoadFlags } from '../../tools/src/cli/flags.js';
import { createHistogram } from '../../tools/src/load/histogram.js';
import { OP_NAMES, type OpName } from '../../tools/src/load/result.js';
import { formatValue, judge, kErrorsRule, parseThreshold, ThresholdSyntaxError, withDefaults } from '../../tools/src/load/thresholds.js';

const test = suite('load thresholds');

test('rules read into a metric, an operator and a limit in the metric\'s unit', () => {
  const read = (text: string): [string, string, number] => {
    const t = parseThreshold(text);
    return [t.metric, t.compare, t.limit];
  };
  assert.equal(read('acquire.p99<2ms'), ['acquire.p99', '<', 2000]);
  assert.equal(read('cycle.p99.9 <= 1.5s'), ['cycle.p99.9', '<=', 1_500_000]);
  assert.equal(read('release.max<800us'), ['release.max', '<', 800]);
  assert.equal(read('acquire.p50<3'), ['acquire.p50', '<', 3000]); // a bare latency is ms, as in k6
  assert.equal(read('errors.rate<0.1%'), ['errors.rate', '<', 0.001]);
  assert.equal(read('errors.rate<0.01'), ['errors.rate', '<', 0.01]);
  assert.equal(read('cycles.rate>20000'), ['cycles.rate', '>', 20000]);
  assert.equal(read('late.rate<1%'), ['late.rate', '<', 0.01]);
  assert.equal(read('late.count>=0'), ['late.count', '>=', 0]);
});

test('bad rules throw ThresholdSyntaxError saying what was expected', () => {
  for (const [text, why] of [
    ['acquire.p99', /is not a threshold: METRIC\.STAT<VALUE/],
    ['acquire.p99=2ms', /is not a threshold/],
    ['lock.p99<2ms', /names no metric: use acquire, extend, release, cycle/],
    ['acquire.rate<2', /judges a latency/],
    ['acquire.p99<2%', /latency in %/],
    ['acquire.p101<2ms', /percentile above 100/],
    ['cycles.rate>20%', /takes no %/],
    ['errors.rate<2ms', /takes no time unit/],
    ['errors.rate<150%', /share above 100%/],
    ['errors.p99<1', /takes \.rate or \.count/],
  ] as const) {
    assert.throws(() => parseThreshold(text), (e: unknown) => e instanceof ThresholdSyntaxError && why.test(e.message) && e.rule === text, text);
  }
});

test('--threshold repeats; a bad rule is a UsageError naming the flag and the rule', () => {
  const o = parseLoadFlags(['--rate', '100', '--threshold', 'acquire.p99<2ms', '--threshold', 'late.rate<1%', '--abort-on-fail', '--abort-grace', '3']);
  assert.ok(o !== 'help');
  assert.equal(o.thresholds.map((t) => t.rule), ['acquire.p99<2ms', 'late.rate<1%']);
  assert.equal([o.abortOnFail, o.abortGraceMs], [true, 3000]);
  assert.throws(() => parseLoadFlags(['--threshold', 'acquire.p99<<2']), (e: unknown) => e instanceof UsageError && e.flag === '--threshold' && /is not a threshold.*got "acquire\.p99<<2"/.test(e.message));
  assert.throws(() => parseLoadFlags(['--threshold', 'late.rate<1%']), (e: unknown) => e instanceof UsageError && /only an open loop \(--rate\)/.test(e.message));
  assert.throws(() => parseLoadFlags(['--abort-grace', '1']), (e: unknown) => e instanceof UsageError && /needs --abort-on-fail/.test(e.message));
  assert.throws(() => parseLoadFlags(['--duration', '1', '--duration', '2']), (e: unknown) => e instanceof UsageError && /more than once/.test(e.message));
});

test('judged values: latencies from the histograms, rates over completed + failed cycles, late over due; nothing to judge fails', () => {
  const histograms = Object.fromEntries(OP_NAMES.map((op) => [op, createHistogram()])) as Record<OpName, ReturnType<typeof createHistogram>>;
  for (let us = 1; us <= 1000; us++) histograms.acquire.recordValue(us);
  const rules = ['acquire.p99<1ms', 'acquire.p50>600us', 'errors.rate<1%', 'cycles.rate>=500', 'late.rate<5%', 'release.p99<1s'].map(parseThreshold);
  const verdicts = judge(withDefaults(rules), { cycles: 1000, errors: 10, seconds: 2, due: 1000, lateStarts: 50, histograms });
  assert.equal(verdicts.map((v) => [v.rule, v.ok, v.value]), [
    ['acquire.p99<1ms', true, 990],
    ['acquire.p50>600us', false, 500],
    ['errors.rate<1%', true, 10 / 1010],
    ['cycles.rate>=500', true, 500],
    ['late.rate<5%', false, 0.05],
    ['release.p99<1s', false, null],
  ]);
  assert.is(formatValue(verdicts[0]!), '990µs');
  assert.is(formatValue(verdicts[4]!), '5.00%');
  assert.is(formatValue(verdicts[5]!), 'no data');
  // With no errors rule of the user's, errors may not exceed cycles.
  const [implicit] = judge(withDefaults([]), { cycles: 10, errors: 11, seconds: 1, histograms });
  assert.equal([implicit!.rule, implicit!.ok, implicit!.implicit], [kErrorsRule.rule, false, true]);
  assert.ok(judge(withDefaults([]), { cycles: 10, errors: 10, seconds: 1, histograms })[0]!.ok, 'as many errors as cycles passes');
});

test.run();
