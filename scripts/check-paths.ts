/**
 * `npm run lint` part three: every `src/…` (or `tools/src/…`) path named in a comment of src/,
 * tools/src/ or scripts/, or in a page of the docs (README.md, docs/*.md), exists. A moved or
 * renamed file leaves no reference behind for a reader to follow into nothing.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pages, stalePaths } from './docs/check.js';
import { repoRoot } from './docs/tsdoc.js';

/** The comments of a TypeScript source, each with the line it starts on (strings and templates skipped). */
export function commentsOf(source: string): { line: number; text: string }[] {
  const comments: { line: number; text: string }[] = [];
  let line = 1;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\n') line++;
    else if (c === '"' || c === "'" || c === '`') {
      for (i++; i < source.length && source[i] !== c; i++) {
        if (source[i] === '\\') i++;
        else if (source[i] === '\n') line++;
      }
    } else if (c === '/' && source[i + 1] === '/') {
      const end = source.indexOf('\n', i);
      const stop = end === -1 ? source.length : end;
      comments.push({ line, text: source.slice(i, stop) });
      i = stop - 1;
    } else if (c === '/' && source[i + 1] === '*') {
      const end = source.indexOf('*/', i + 2);
      const stop = end === -1 ? source.length : end + 2;
      const text = source.slice(i, stop);
      comments.push({ line, text });
      line += text.split('\n').length - 1;
      i = stop - 1;
    }
  }
  return comments;
}

/**
 * The `src/…` paths named in `source`'s comments that exist neither as named nor as the .ts a .js
 * names (in tools/, `src/…` may name the workspace's own tools/src/…).
 */
export function danglingInComments(name: string, source: string, exists = (path: string) => existsSync(join(repoRoot, path))): string[] {
  const found = (path: string): boolean => exists(path) || exists(path.replace(/\.js$/, '.ts'))
    || (name.startsWith('tools/') && (exists(`tools/${path}`) || exists(`tools/${path.replace(/\.js$/, '.ts')}`)));
  const problems: string[] = [];
  for (const { line, text } of commentsOf(source)) {
    text.split('\n').forEach((row, offset) => {
      for (const match of row.matchAll(/(?<![\w./-])((?:tools\/)?src\/[\w./-]*)/g)) {
        const path = match[1]!.replace(/[.]+$/, '');
        if (/[*…]/.test(row.slice(match.index, match.index + match[0].length + 1))) continue;
        if (!found(path)) problems.push(`${name}:${line + offset}: ${path}: no such file or folder`);
      }
    });
  }
  return problems;
}

function sources(dir: string): string[] {
  return readdirSync(join(repoRoot, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.c?ts$/.test(file))
    .map((file) => join(dir, file));
}

function main(): void {
  const files = ['src', 'tools/src', 'scripts'].flatMap(sources);
  const problems = [
    ...files.flatMap((file) => danglingInComments(file, readFileSync(join(repoRoot, file), 'utf8'))),
    ...pages().flatMap((page) => stalePaths(page)),
  ];
  if (problems.length > 0) {
    console.error(`check-paths: ${problems.length} path(s) named in a comment or a doc that do not exist:\n  ${problems.join('\n  ')}`);
    process.exitCode = 1;
    return;
  }
  console.log(`check-paths: every src/… path named in the comments of ${files.length} files and in ${pages().length} pages exists`);
}

if (process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, ''))) main();
