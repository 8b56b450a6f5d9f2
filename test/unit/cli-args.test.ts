import '../helpers/setup.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { UsageError } from '../../tools/src/cli/errors.js';
import { parseLoadFlags } from '../../tools/src/cli/flags.js';
import { parseReportArgs } from '../../tools/src/cli/report.js';

const test = suite('cli arguments');

function usage(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (error) {
    assert.instance(error, UsageError);
    return error as UsageError;
  }
  throw new Error('expected a UsageError');
}

test('report merge: files, --json and --html', () => {
  assert.equal(parseReportArgs(['merge', 'a.json', 'b.json', '--json', 'all.json']), { files: ['a.json', 'b.json'], json: 'all.json', html: undefined, allowDisjoint: false });
  assert.is(parseReportArgs(['--help']), 'help');
  assert.is(parseReportArgs(['merge', '--help']), 'help');
});

// [args, the flag or argument named, a fragment of the message]
const BAD: [string[], string, string][] = [
  [[], 'report', 'takes the subcommand merge'],
  [['mrege', 'a', 'b'], 'report', 'takes the subcommand merge'],
  [['merge', 'a.json'], 'report merge', 'at least two result files'],
  [['merge', 'a.json', 'a.json'], 'report merge', 'must not name a result file twice (file 2 repeats file 1)'],
  [['merge', 'a', 'b', '--bogus'], '--bogus', 'is not a report merge flag (see pipelock report --help)'],
  [['merge', 'a', 'b', '--json'], '--json', 'needs a value'],
  [['merge', 'a', 'b', '--help=1'], '--help', 'takes no value'],
  [['merge', 'a', 'b', '--json', ''], '--json', 'must name a file'],
  [['merge', 'a', 'b', '--html', ' '], '--html', 'must name a file'],
  [['merge', 'a', 'b', '--json', 'x', '--html', 'x'], '--html', 'conflicts with --json'],
  [['merge', 'a', 'b', '--json', 'x', '--json', 'y'], '--json', 'is given more than once'],
];
for (const [args, flag, fragment] of BAD) {
  test(`report ${args.join(' ')} → UsageError naming ${flag}`, () => {
    const error = usage(() => parseReportArgs(args));
    assert.is(error.flag, flag);
    assert.ok(error.message.startsWith(flag), error.message);
    assert.ok(error.message.includes(fragment), `${error.message} should include ${fragment}`);
  });
}

test('loadtest: a flag given twice is named, whichever way it is spelt', () => {
  for (const args of [['--workers', '2', '--workers', '3'], ['--workers=2', '--workers', '3'], ['--retry-count', '-1', '--retry-count', '2']]) {
    const error = usage(() => parseLoadFlags(args));
    assert.is(error.flag, args[0]!.split('=')[0]);
    assert.is(error.message, `${error.flag} is given more than once`);
  }
});

test.run();
