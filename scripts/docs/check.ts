/**
 * `npm run docs:check` (and test/unit/docs-generated.test.ts): in README.md and docs/*.md,
 * 1. every relative link resolves to a file or folder of the repository, and every `#anchor` (in
 *    the same page or another Markdown page) to one of its headings, slugged as GitHub does;
 * 2. a code block right after `<!-- file: PATH -->` is exactly that file, so an example shown in
 *    the docs is the one that is typechecked (and, for examples/readme.ts, run) by the tests;
 * 3. every `src/…` or `tools/src/…` path they name, in prose or code, exists (a moved file leaves none behind);
 * 4. no example under examples/ imports the sources by path: users import `pipelock`, and so do they;
 * 5. figures say where they come from (provenance.ts), BENCHMARKS.md's included;
 * 6. tools/README.md (npm's page of pipelock-tools) links absolutely.
 * Prints each problem and exits 1 if there is any.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { staleCitations, tablesWithoutProvenance } from './provenance.js';
import { repoRoot } from './tsdoc.js';

/** The Markdown pages checked: the README and the guides (not docs/api/, which TypeDoc writes). */
export function pages(): string[] {
  const docs = join(repoRoot, 'docs');
  return [join(repoRoot, 'README.md'), ...readdirSync(docs).filter((f) => f.endsWith('.md')).sort().map((f) => join(docs, f))];
}

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2, … */
export function slug(heading: string): string {
  return heading
    .replace(/<[^>]*>/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .toLowerCase()
    .trim()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The lines outside fenced code blocks, with their numbers. */
function prose(text: string): { line: string; n: number }[] {
  const out: { line: string; n: number }[] = [];
  let fenced = false;
  text.split('\n').forEach((line, i) => {
    if (/^\s*```/.test(line)) fenced = !fenced;
    else if (!fenced) out.push({ line, n: i + 1 });
  });
  return out;
}

const anchorCache = new Map<string, Set<string>>();

export function anchors(file: string): Set<string> {
  let found = anchorCache.get(file);
  if (found !== undefined) return found;
  found = new Set<string>();
  const seen = new Map<string, number>();
  for (const { line } of prose(readFileSync(file, 'utf8'))) {
    const match = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (match === null) continue;
    const base = slug(match[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  anchorCache.set(file, found);
  return found;
}

export function checkPage(file: string): string[] {
  const problems: string[] = [];
  const text = readFileSync(file, 'utf8');
  const name = relative(repoRoot, file);
  for (const { line, n } of prose(text)) {
    const withoutCode = line.replace(/`[^`]*`/g, '');
    for (const match of withoutCode.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      const [path = '', anchor] = target.split('#', 2);
      const resolved = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
      if (!resolved.startsWith(repoRoot)) problems.push(`${name}:${n}: ${target} leaves the repository`);
      else if (!existsSync(resolved)) problems.push(`${name}:${n}: ${target}: no such file`);
      else if (anchor !== undefined && anchor !== '') {
        if (!resolved.endsWith('.md')) problems.push(`${name}:${n}: ${target}: an anchor into a file that is not Markdown`);
        else if (!anchors(resolved).has(anchor))
          problems.push(`${name}:${n}: ${target}: no heading with anchor #${anchor} in ${relative(repoRoot, resolved)}`);
      }
    }
  }
  // <!-- file: PATH --> then a fenced block: the block is the file.
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const marker = /^<!-- file: (\S+) -->$/.exec(line.trim());
    if (marker === null) return;
    const path = resolve(repoRoot, marker[1]!);
    if (!/^```/.test(lines[i + 1] ?? '')) {
      problems.push(`${name}:${i + 1}: <!-- file: ${marker[1]} --> is not followed by a code block`);
      return;
    }
    const end = lines.findIndex((l, j) => j > i + 1 && /^```\s*$/.test(l));
    const block = lines.slice(i + 2, end).join('\n');
    if (!existsSync(path)) problems.push(`${name}:${i + 1}: ${marker[1]}: no such file`);
    else if (block.trimEnd() !== readFileSync(path, 'utf8').trimEnd())
      problems.push(`${name}:${i + 1}: the code block differs from ${marker[1]} (copy the file into it)`);
  });
  return problems;
}

/** Each `src/…` path a page names that does not exist; globs and elided paths (`*`, `…`) are not paths. */
export function stalePaths(file: string): string[] {
  const name = relative(repoRoot, file);
  const problems: string[] = [];
  readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
    for (const match of line.matchAll(/(?<![\w./-])((?:tools\/)?src\/[\w./-]*)/g)) {
      const path = match[1]!.replace(/[.]+$/, '');
      if (/[*…]/.test(line.slice(match.index, match.index + match[0].length + 1))) continue;
      if (!existsSync(join(repoRoot, path))) problems.push(`${name}:${i + 1}: ${path}: no such file or folder`);
    }
  });
  return problems;
}

/** The examples' imports of the sources by path (`../src/…`), which a user's copy could not resolve. */
export function sourceImports(dir = join(repoRoot, 'examples')): string[] {
  const problems: string[] = [];
  for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const path = join(dir, entry);
    if (!/\.(ts|mts|cts|js|mjs|cjs)$/.test(entry) || !statSync(path).isFile()) continue;
    readFileSync(path, 'utf8').split('\n').forEach((line, i) => {
      if (/\bfrom\s+['"](\.\.\/)+src\/|import\(\s*['"](\.\.\/)+src\//.test(line)) {
        problems.push(`${relative(repoRoot, path)}:${i + 1}: imports the sources by path: import from 'pipelock' (or pipelock/testing, `
          + `pipelock/metrics)`);
      }
    });
  }
  return problems;
}

/**
 * Relative links in a README that npm shows for a package published from a subfolder (tools/): npm
 * resolves them against the repository with the folder inserted, so they must be absolute there.
 */
export function relativeLinks(file = join(repoRoot, 'tools', 'README.md')): string[] {
  return prose(readFileSync(file, 'utf8')).flatMap(({ line, n }) => [...line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)/g)]
    .filter((m) => !/^[a-z][a-z0-9+.-]*:/i.test(m[1]!))
    .map((m) => `${relative(repoRoot, file)}:${n}: ${m[1]!}: a relative link, dead on npm's page of a package published from a subfolder `
      + `(use an absolute URL)`));
}

export function checkDocs(): string[] {
  const figures =
    [...pages(), join(repoRoot, 'BENCHMARKS.md')].flatMap((page) => [...tablesWithoutProvenance(page), ...staleCitations(page)]);
  return [...pages().flatMap((page) => [...checkPage(page), ...stalePaths(page)]), ...sourceImports(), ...relativeLinks(), ...figures];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const problems = checkDocs();
  for (const problem of problems) console.error(problem);
  console.log(`docs:check: ${pages().length} pages, ${problems.length} problem(s)`);
  process.exitCode = problems.length === 0 ? 0 : 1;
}
