import { parseArgs } from 'node:util';
import { readResult } from '../load/result-file.js';
import { mergeResults } from '../load/result.js';
import { mergeParts } from '../load/result-parts.js';
import { checkWindows } from '../load/windows.js';
import { reportCompare } from './compare.js';
import { EXIT, parseOr, UsageError, usageFailure } from './errors.js';
import { checkRepeats, fromParseArgs, path } from './flags.js';
import { writeOutputs } from './outputs.js';
import { formatResult } from './table.js';

export const REPORT_USAGE = `usage: pipelock report merge A.json B.json … [--json FILE] [--html FILE] [--allow-disjoint]
       pipelock report compare BASE.json NEW.json [flags]   (pipelock report compare --help)

merge: combines results written by \`pipelock loadtest --json\` by runs made at the same time on several
machines (see --start-at): histograms are added exactly, counts summed, throughput summed, one host
line per run. Runs whose measured windows do not overlap are refused; a partial overlap is flagged.
  --json FILE        write the merged result (itself mergeable again)
  --html FILE        write a self-contained report of the merged result
  --allow-disjoint   merge runs whose measured windows do not overlap (runs made one after another)
  --help             show this

compare: judges a change against a baseline for CI; exit code 1 when it regressed.

Exit codes: 0 done, 1 an output could not be written (merge) or a regression (compare), 2 bad
arguments or result files (unreadable, not from pipelock loadtest --json, windows that do not overlap).`;

/** `pipelock report merge|compare …`: returns the exit code. */
export async function report(args: readonly string[]): Promise<number> {
  if (args[0] === 'compare') return reportCompare(args.slice(1));
  // Bad arguments and bad inputs alike: exit code 2, the message naming the flag or the file.
  const parsed = parseOr('report', REPORT_USAGE, () => parseReportArgs(args), true);
  if (typeof parsed === 'number') return parsed;
  let merged;
  try {
    const results = await Promise.all(parsed.files.map(readResult));
    const notes = parsed.allowDisjoint ? [] : checkWindows(parsed.files, results);
    merged = { ...mergeResults(results, notes), ...mergeParts(results) };
  } catch (error) {
    return usageFailure('report', error, true);
  }
  try {
    console.log(formatResult(merged));
    await writeOutputs(merged, parsed);
    return EXIT.ok;
  } catch (error) {
    console.error(`pipelock report: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT.failed;
  }
}


export interface MergeArgs {
  readonly files: string[];
  readonly json: string | undefined;
  readonly html: string | undefined;
  readonly allowDisjoint: boolean;
}

/** Parses and validates `pipelock report merge …` arguments; throws UsageError naming the flag or argument. */
export function parseReportArgs(args: readonly string[]): MergeArgs | 'help' {
  const [sub, ...rest] = args;
  if (sub === '--help' || sub === '-h') return 'help';
  if (sub !== 'merge') throw new UsageError('report', 'takes the subcommand merge or compare', sub ?? '');
  let parsed;
  try {
    parsed = parseArgs({ args: rest, allowPositionals: true, strict: true, tokens: true,
      options: { json: { type: 'string' }, html: { type: 'string' }, 'allow-disjoint': { type: 'boolean' }, help: { type: 'boolean' } } });
    checkRepeats(parsed.tokens);
  } catch (error) {
    throw fromParseArgs(error, 'report merge');
  }
  if (parsed.values.help === true) return 'help';
  const { json, html } = parsed.values;
  const files = parsed.positionals;
  if (files.length < 2) throw new UsageError('report merge', 'needs at least two result files (written by pipelock loadtest --json)');
  // The same run twice would count its histograms and cycles twice.
  const repeated = files.findIndex((file, i) => files.indexOf(file) !== i);
  if (repeated !== -1) throw new UsageError('report merge',
    `must not name a result file twice (file ${repeated + 1} repeats file ${files.indexOf(files[repeated]!) + 1})`, files[repeated]);
  if (json !== undefined) path('--json', json);
  if (html !== undefined) path('--html', html);
  if (json !== undefined && json === html) throw new UsageError('--html', 'conflicts with --json: both name the same file');
  return { files, json, html, allowDisjoint: parsed.values['allow-disjoint'] === true };
}
