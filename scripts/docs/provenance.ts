/**
 * Where the figures of README.md, BENCHMARKS.md and docs/*.md come from (`npm run docs:check`, test/unit/docs.test.ts):
 * 1. a table of measured figures carries its provenance in its section (or the page's preamble): a line
 *    naming the CPU, the date and the commit, or a link to a bench/results/ file whose host does;
 * 2. a figure cited from a benchmark (`bench:NAME` followed by a commit, as in "`npm run bench:peers`,
 *    2026-11-26, …, pipelock bb499cd") names the commit of bench/results/NAME.json: when the benchmark is
 *    run again, the prose quoting the old run fails here until it is brought up to date.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { repoRoot } from './tsdoc.js';

/** A header naming a measured quantity makes a table one of figures. */
const kFigureHeader = /cycles\/s|successes\/s|handoffs\/s|ops\/s|µs|\bms\b|\bMB\b|measured|×|per cycle/;
const kCpu = /AMD|Intel|EPYC|Xeon|Apple M\d|\bcores?\b/;
const kDate = /\b20\d\d-\d\d-\d\d/;
/** A short or full commit hash: hex with a digit and a letter, so that words (`facade`) and numbers are not. */
const kCommit = /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b/;
const kResults = /bench\/results\/([\w.-]+\.json)/g;

interface ResultsHost { readonly cpu?: string; readonly date?: string; readonly pipelock?: string }

/** The host a results file records (CPU, date, `version (commit)`), or undefined if it records none. */
export function resultsHost(name: string): ResultsHost | undefined {
  const path = join(repoRoot, 'bench', 'results', name);
  if (!existsSync(path)) return undefined;
  // bench/results/metrics-cost.json's host is a list of strings: no CPU, no date, no commit.
  const host = (JSON.parse(readFileSync(path, 'utf8')) as { host?: ResultsHost | readonly string[] }).host;
  return host === undefined || Array.isArray(host) ? undefined : host as ResultsHost;
}

/** The commit a results file was measured at, from its host's `pipelock` field ("0.1.0 (bb499cd)"). */
export function resultsCommit(name: string): string | undefined {
  return /\(([0-9a-f]{7,40})/.exec(resultsHost(name)?.pipelock ?? '')?.[1];
}

/** A line that says where figures come from: CPU, date and commit, or a results file that records them. */
export function isProvenance(line: string): boolean {
  if (kCpu.test(line) && kDate.test(line) && kCommit.test(line)) return true;
  return [...line.matchAll(kResults)].some((m) => {
    const host = resultsHost(m[1]!);
    return host?.cpu !== undefined && host.date !== undefined && resultsCommit(m[1]!) !== undefined;
  });
}

/** Lines outside fenced code blocks, numbered from 1; fenced lines read as ''. */
function proseLines(text: string): string[] {
  let fenced = false;
  return text.split('\n').map((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line;
  });
}

/** Each table of figures in `file` with no provenance in its `##` section or the page's preamble. */
export function tablesWithoutProvenance(file: string): string[] {
  const lines = proseLines(readFileSync(file, 'utf8'));
  const top = (i: number): boolean => /^#{1,2}\s/.test(lines[i]!);
  const firstSection = lines.findIndex((line, i) => i > 0 && /^##\s/.test(line));
  const preamble = lines.slice(0, firstSection < 0 ? lines.length : firstSection);
  const problems: string[] = [];
  lines.forEach((line, i) => {
    if (!line.startsWith('|') || lines[i - 1]?.startsWith('|') === true || !kFigureHeader.test(line)) return;
    let start = i;
    while (start > 0 && !top(start)) start--;
    let end = i;
    while (end < lines.length - 1 && !top(end + 1)) end++;
    if ([...preamble, ...lines.slice(start, end + 1)].some(isProvenance)) return;
    problems.push(`${relative(repoRoot, file)}:${i + 1}: a table of figures with no line naming CPU, date and commit (or a bench/results/ `
      + `file) in its section`);
  });
  return problems;
}

/** Each `bench:NAME … commit` citation whose commit is not bench/results/NAME.json's. */
export function staleCitations(file: string): string[] {
  const problems: string[] = [];
  const text = proseLines(readFileSync(file, 'utf8')).join('\n');
  for (const paragraph of text.split(/\n\s*\n/)) {
    for (const m of paragraph.matchAll(/bench:([a-z0-9-]+)(?![\w:])/g)) {
      const name = `${m[1]!}.json`;
      const measured = resultsCommit(name);
      if (measured === undefined) continue;
      // The commit cited with it: before the next benchmark named, within a citation's length.
      const after = paragraph.slice(m.index + m[0].length, m.index + m[0].length + 200).split(/bench:/)[0]!;
      const cited = kCommit.exec(after)?.[0];
      if (cited === undefined || measured.startsWith(cited) || cited.startsWith(measured)) continue;
      const line = text.slice(0, text.indexOf(paragraph) + m.index).split('\n').length;
      problems.push(`${relative(repoRoot, file)}:${line}: cites bench:${m[1]!} at ${cited}, but bench/results/${name} is from ${measured}: `
        + `update the figures from it`);
    }
  }
  return problems;
}
