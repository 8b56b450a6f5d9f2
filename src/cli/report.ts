import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { mergeResults, type RunResult } from '../load/result.js';
import { EXIT, UsageError } from './errors.js';
import { checkRepeats, fromParseArgs, path } from './flags.js';
import { writeOutputs } from './outputs.js';
import { formatResult } from './table.js';

export const REPORT_USAGE = `usage: pipelock report merge A.json B.json … [--json FILE] [--html FILE]

Combines results written by \`pipelock loadtest --json\` (e.g. runs made side by side on several
machines): histograms are added exactly, counts summed, throughput summed, one host line per run.
  --json FILE   write the merged result (itself mergeable again)
  --html FILE   write a self-contained report of the merged result
  --help        show this`;

/** `pipelock report merge …`: returns the exit code. */
export async function report(args: readonly string[]): Promise<number> {
  try {
    const parsed = parseReportArgs(args);
    if (parsed === 'help') {
      console.log(REPORT_USAGE);
      return EXIT.ok;
    }
    const results = await Promise.all(parsed.files.map(readResult));
    const merged = mergeResults(results);
    console.log(formatResult(merged));
    await writeOutputs(merged, parsed);
    return EXIT.ok;
  } catch (error) {
    const usage = error instanceof UsageError;
    console.error(`pipelock report: ${error instanceof Error ? error.message : String(error)}${usage ? '\nTry pipelock report --help.' : ''}`);
    return usage ? EXIT.usage : EXIT.failed;
  }
}

/** Parses and validates `pipelock report …` arguments; throws UsageError naming the flag or argument. */
export function parseReportArgs(args: readonly string[]): { files: string[]; json: string | undefined; html: string | undefined } | 'help' {
  const [sub, ...rest] = args;
  if (sub === '--help' || sub === '-h') return 'help';
  if (sub !== 'merge') throw new UsageError('report', 'takes the subcommand merge', sub ?? '');
  let parsed;
  try {
    parsed = parseArgs({ args: rest, allowPositionals: true, strict: true, tokens: true, options: { json: { type: 'string' }, html: { type: 'string' }, help: { type: 'boolean' } } });
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
  if (repeated !== -1) throw new UsageError('report merge', `must not name a result file twice (file ${repeated + 1} repeats file ${files.indexOf(files[repeated]!) + 1})`, files[repeated]);
  if (json !== undefined) path('--json', json);
  if (html !== undefined) path('--html', html);
  if (json !== undefined && json === html) throw new UsageError('--html', 'conflicts with --json: both name the same file');
  return { files, json, html };
}

async function readResult(file: string): Promise<RunResult> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const result = value as Partial<RunResult> | null;
  if (result?.format !== 'pipelock-loadtest' || result.version !== 1 || typeof result.operations !== 'object') {
    throw new Error(`${file} is not a result of pipelock loadtest --json (format pipelock-loadtest, version 1)`);
  }
  return result as RunResult;
}
