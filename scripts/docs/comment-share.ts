/**
 * `npm run comment-share`: the share of comment lines among the non-blank lines of src/, per top folder and in all,
 * counted as house-r4 counted it: a comment line starts with `//` or `/*`, or sits inside a block comment. With
 * `--max P` (as `npm run lint` runs it, P = 22) it exits 1 when src/ is above P %: the long reasons go to
 * docs/decisions/0012-long-reasons.md, not back into the comments.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './tsdoc.js';

/** Comment and non-blank line counts of one source text. */
export function commentLines(source: string): { comment: number; nonBlank: number } {
  let comment = 0;
  let nonBlank = 0;
  let inBlock = false;
  for (const raw of source.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    nonBlank++;
    if (inBlock) {
      comment++;
      if (line.includes('*/')) inBlock = false;
    } else if (line.startsWith('//')) comment++;
    else if (line.startsWith('/*')) {
      comment++;
      inBlock = !line.includes('*/', 2);
    }
  }
  return { comment, nonBlank };
}

function main(max?: number): void {
  const root = join(repoRoot, 'src');
  const byLayer = new Map<string, { comment: number; nonBlank: number }>();
  for (const file of readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => /\.c?ts$/.test(f))) {
    const layer = file.includes('/') ? file.slice(0, file.indexOf('/')) : '(root)';
    const counts = commentLines(readFileSync(join(root, file), 'utf8'));
    const sum = byLayer.get(layer) ?? { comment: 0, nonBlank: 0 };
    byLayer.set(layer, { comment: sum.comment + counts.comment, nonBlank: sum.nonBlank + counts.nonBlank });
  }
  const pct = (c: { comment: number; nonBlank: number }): string => `${((100 * c.comment) / c.nonBlank).toFixed(1)} %`;
  let all = { comment: 0, nonBlank: 0 };
  for (const [layer, counts] of [...byLayer].sort()) {
    console.log(`${layer.padEnd(12)} ${String(counts.comment).padStart(5)} / ${String(counts.nonBlank).padStart(5)}  ${pct(counts)}`);
    all = { comment: all.comment + counts.comment, nonBlank: all.nonBlank + counts.nonBlank };
  }
  console.log(`${'src/'.padEnd(12)} ${String(all.comment).padStart(5)} / ${String(all.nonBlank).padStart(5)}  ${pct(all)}`);
  if (max !== undefined && (100 * all.comment) / all.nonBlank > max) {
    console.error(`comment-share: src/ is ${pct(all)} comments, above ${max} %: say why in a sentence and move the long reasons`
      + ' to a decision record (docs/decisions/0012-long-reasons.md)');
    process.exitCode = 1;
  }
}

/** The `--max P` argument, or undefined. */
function maxArg(args: readonly string[]): number | undefined {
  const at = args.indexOf('--max');
  if (at === -1) return undefined;
  const max = Number(args[at + 1]);
  if (!Number.isFinite(max)) throw new Error(`comment-share: --max takes a percentage, not ${String(args[at + 1])}`);
  return max;
}

if (process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, ''))) main(maxArg(process.argv.slice(2)));
