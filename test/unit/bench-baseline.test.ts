import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { baselineFigures, bestOf, compareToBaseline, cpuModelOf, figuresFor, formatVerdict, type Baseline, type Rule } from '../../bench/lib/baseline.js';
import { parseInfo, subtract } from '../../bench/ci/counters.js';
import { parseEventCounts } from '../../bench/ci/instructions.js';
import { median, pairedRatio, quantile, spread } from '../../bench/lib/stats.js';

const test = suite('bench: baseline rule, INFO counters and statistics');

const baseline: Baseline = {
  figures: {
    c64: {
      scriptCallsPerCycle: { baseline: 0.0313, bound: 'max', tolerance: 0.05 },
      throughputRatio: { baseline: 1.2, bound: 'min', tolerance: 0.5 },
    },
    c512: { cpuRatio: { baseline: 0.4, bound: 'max', tolerance: 0.1 } },
  },
};

test('a max figure passes up to baseline × (1 + tolerance); a min figure down to baseline × (1 − tolerance)', () => {
  const ok = compareToBaseline({ c64: { scriptCallsPerCycle: 0.0313 * 1.05, throughputRatio: 0.6 }, c512: { cpuRatio: 0.44 } }, baseline);
  assert.ok(ok.ok, formatVerdict(ok));
  assert.equal(ok.rows.map((row) => [row.config, row.metric, row.ok]), [['c64', 'scriptCallsPerCycle', true], ['c64', 'throughputRatio', true], ['c512', 'cpuRatio', true]]);
  assert.ok(Math.abs(ok.rows[2]!.limit - 0.44) < 1e-12);
  assert.ok(Math.abs(ok.rows[1]!.limit - 0.6) < 1e-12);

  const bad = compareToBaseline({ c64: { scriptCallsPerCycle: 1, throughputRatio: 0.59 }, c512: { cpuRatio: 0.4401 } }, baseline);
  assert.not.ok(bad.ok);
  assert.equal(bad.rows.map((row) => row.ok), [false, false, false]);
  // Lower calls and CPU, higher throughput: all improvements.
  assert.ok(compareToBaseline({ c64: { scriptCallsPerCycle: 0, throughputRatio: 9 }, c512: { cpuRatio: 0.1 } }, baseline).ok);
});

test('a figure of the baseline that was not measured, or measured as NaN, fails; others are not judged', () => {
  assert.not.ok(compareToBaseline({ c64: { scriptCallsPerCycle: 0.03, throughputRatio: 1 } }, baseline).ok);
  assert.not.ok(compareToBaseline({ c64: { scriptCallsPerCycle: NaN, throughputRatio: 1 }, c512: { cpuRatio: 0.4 } }, baseline).ok);
  assert.ok(compareToBaseline({ c64: { scriptCallsPerCycle: 0.03, throughputRatio: 1, other: 1e9 }, c512: { cpuRatio: 0.4 }, c1: { cpuRatio: 9 } }, baseline).ok);
  assert.not.ok(compareToBaseline({}, { figures: {} }).ok, 'an empty baseline judges nothing and fails');
});

test('a rule outside [0, 1) or with an unknown bound is rejected', () => {
  const with_ = (rule: Rule): Baseline => ({ figures: { c64: { x: { baseline: 1, ...rule } } } });
  assert.throws(() => compareToBaseline({}, with_({ bound: 'max', tolerance: 1 })), RangeError);
  assert.throws(() => compareToBaseline({}, with_({ bound: 'min', tolerance: -0.1 })), RangeError);
  assert.throws(() => compareToBaseline({}, with_({ bound: 'above' as 'max', tolerance: 0.1 })), RangeError);
});

test('baselineFigures keeps the most lenient value of each ruled figure over the runs', () => {
  const rules: Record<string, Rule> = { calls: { bound: 'max', tolerance: 0.05 }, tput: { bound: 'min', tolerance: 0.5 }, 'c512.cpu': { bound: 'max', tolerance: 0.06 } };
  const ruleOf = (config: string, metric: string): Rule | undefined => rules[`${config}.${metric}`] ?? rules[metric];
  const runs = [
    { c64: { calls: 0.03, tput: 1.3, cpu: 0.6 }, c512: { cpu: 0.41 } },
    { c64: { calls: 0.04, tput: 1.1, cpu: 0.7 }, c512: { cpu: 0.43 } },
    { c64: { calls: 0.035, tput: 1.2, cpu: 0.5 }, c512: { cpu: 0.42 } },
  ];
  assert.equal(baselineFigures(runs, ruleOf), {
    c64: { calls: { baseline: 0.04, bound: 'max', tolerance: 0.05 }, tput: { baseline: 1.1, bound: 'min', tolerance: 0.5 } },
    c512: { cpu: { baseline: 0.43, bound: 'max', tolerance: 0.06 } },
  });
  for (const run of runs) assert.ok(compareToBaseline(run, { figures: baselineFigures(runs, ruleOf) }).ok, 'every run the baseline came from passes it');
  assert.throws(() => baselineFigures([{ c64: { calls: NaN } }], ruleOf), RangeError);
});

test('bestOf keeps the most favourable value of each figure: lowest under max, highest under min, NaN only when nothing else', () => {
  const boundOf = (config: string, metric: string): 'max' | 'min' | undefined => baseline.figures[config]?.[metric]?.bound;
  const runs = [
    { c64: { scriptCallsPerCycle: 0.0313, throughputRatio: 0.5 }, c512: { cpuRatio: 0.5 } },
    { c64: { scriptCallsPerCycle: 0.0313, throughputRatio: 1.1 }, c512: { cpuRatio: NaN } },
    { c64: { scriptCallsPerCycle: 0.0320, throughputRatio: 0.9 }, c512: { cpuRatio: 0.43 } },
  ];
  assert.equal(bestOf(runs, boundOf), { c64: { scriptCallsPerCycle: 0.0313, throughputRatio: 1.1 }, c512: { cpuRatio: 0.43 } });
  assert.not.ok(compareToBaseline(runs[0]!, baseline).ok, 'the first run alone fails');
  assert.ok(compareToBaseline(bestOf(runs, boundOf), baseline).ok, 'judged by the best of three, it passes');
  // A regression in every run still fails.
  assert.not.ok(compareToBaseline(bestOf([runs[0]!, { ...runs[2]!, c512: { cpuRatio: 0.5 } }], boundOf), baseline).ok);
});

test('the verdict prints measured, change, baseline and limit for every figure', () => {
  const text = formatVerdict(compareToBaseline({ c64: { scriptCallsPerCycle: 1, throughputRatio: 1.2 } }, baseline));
  assert.is(text, [
    'FAIL c64 scriptCallsPerCycle = 1.000 (+3094.9%); baseline 0.03130, at most 0.03287',
    'ok   c64 throughputRatio = 1.200 (+0.0%); baseline 1.200, at least 0.6000',
    'FAIL c512 cpuRatio = not measured; baseline 0.4000, at most 0.4400',
  ].join('\n'));
});

const info = (evalsha: number, set: number, commands: number, bytes: number, sys: string, user: string): string => [
  '# Commandstats',
  `cmdstat_set:calls=${set},usec=12,usec_per_call=6.00,rejected_calls=0,failed_calls=0`,
  `cmdstat_evalsha:calls=${evalsha},usec=87,usec_per_call=87.00,rejected_calls=0,failed_calls=0`,
  'cmdstat_info:calls=2,usec=66,usec_per_call=33.00,rejected_calls=0,failed_calls=0',
  '',
  '# Stats',
  `total_commands_processed:${commands}`,
  'instantaneous_ops_per_sec:0',
  `total_net_input_bytes:${bytes}`,
  '',
  '# CPU',
  `used_cpu_sys:${sys}`,
  `used_cpu_user:${user}`,
].join('\r\n');

test('INFO commandstats stats cpu: script calls are EVALSHA + EVAL only; CPU in whole µs', () => {
  const before = parseInfo(info(10, 500, 1000, 20_000, '1.000001', '2.5'));
  assert.equal(before, { scriptCalls: 10, commands: 1000, inputBytes: 20_000, cpuUs: 3_500_001 });
  const withEval = parseInfo(`${info(10, 0, 1, 1, '0', '0')}\r\ncmdstat_eval:calls=4,usec=1`);
  assert.is(withEval.scriptCalls, 14);
  const noScripts = parseInfo(info(0, 3, 5, 100, '0.1', '0.2').replace(/^cmdstat_evalsha.*$/m, ''));
  assert.is(noScripts.scriptCalls, 0, 'a master that never ran a script has no cmdstat_evalsha line');
  const after = parseInfo(info(12, 700, 1400, 21_000, '1.100001', '2.6'));
  assert.equal(subtract(after, before), { scriptCalls: 2, commands: 400, inputBytes: 1000, cpuUs: 200_000 });
  assert.throws(() => parseInfo('# Commandstats\r\n'), /total_commands_processed/);
});

test('median, quantile, spread and paired ratios', () => {
  assert.is(median([3, 1, 2]), 2);
  assert.is(median([4, 1, 3, 2]), 2.5);
  assert.ok(Number.isNaN(median([])));
  assert.is(quantile([4, 1, 3, 2, 5], 0.25), 2);
  assert.is(quantile([1, 2], 0.5), 1.5);
  assert.is(quantile([7], 0.75), 7);
  assert.ok(Number.isNaN(quantile([], 0.5)));
  assert.equal(spread([5, 1, 3]), { median: 3, min: 1, max: 5, n: 3 });
  // Per-repetition ratios 2, 3, 1 → median 2; a failed repetition (NaN) is left out.
  assert.is(pairedRatio([20, 30, 10, NaN], [10, 10, 10, 10]), 2);
  assert.ok(Number.isNaN(pairedRatio([1], [0])));
});


test('client CPU ratios are judged against the baseline of the host\'s CPU model, by the start of its name; other figures on every model', () => {
  const baseline: Baseline = {
    figures: { c64: { bytesPerCycle: { baseline: 488, bound: 'max', tolerance: 0.02 } } },
    cpuModels: {
      'AMD EPYC': { figures: { c64: { cpuRatio: { baseline: 0.71, bound: 'max', tolerance: 0.1 } } } },
      'Intel(R) Xeon(R)': { figures: { c64: { cpuRatio: { baseline: 0.55, bound: 'max', tolerance: 0.1 } } } },
    },
  };
  assert.is(cpuModelOf(baseline, 'Intel(R) Xeon(R) Processor'), 'Intel(R) Xeon(R)');
  assert.is(cpuModelOf(baseline, 'AMD EPYC 9B14'), 'AMD EPYC');
  assert.is(cpuModelOf(baseline, 'Apple M4'), undefined);
  // 0.65 is within the EPYC's limit (0.781) and over the Xeon's (0.605): a 15% slower client on the Xeon fails there.
  const run = { c64: { bytesPerCycle: 488, cpuRatio: 0.65 } };
  assert.ok(compareToBaseline(run, baseline, 'AMD EPYC 9B14').ok);
  assert.not.ok(compareToBaseline(run, baseline, 'Intel(R) Xeon(R) Processor').ok);
  // An unknown model: the CPU ratio is not judged, the rest is.
  assert.ok(compareToBaseline(run, baseline, 'Apple M4').ok);
  assert.not.ok(compareToBaseline({ c64: { bytesPerCycle: 600, cpuRatio: 0.1 } }, baseline, 'Apple M4').ok);
  assert.equal(Object.keys(figuresFor(baseline, 'Apple M4').c64!), ['bytesPerCycle']);
});

test('callgrind_control -e: the instructions of every thread summed; an answer without them is an error', () => {
  const answer = ['PID 14809: node --single-threaded bench/ci/cycles.js', '', '  Totals:         Ir ', '   Th 1  580,561,909 ', '   Th 2        3,345 ',
    '   Th 3          682 ', ''].join('\n');
  assert.is(parseEventCounts(answer), 580_561_909 + 3_345 + 682);
  assert.throws(() => parseEventCounts('PID 14809: node\n  Error: no such process'), /no per-thread counts/);
});

test.run();
