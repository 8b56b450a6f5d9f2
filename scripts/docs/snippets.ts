/**
 * Typechecks the ```ts blocks of README.md and docs/*.md: each block is compiled as a module of its
 * own, after a preamble that declares what the prose around it assumes (a `redlock`, the caller's
 * `job`, `payload`, …), with the repository's compiler options and `pipelock` resolving to src/.
 * A block right after `<!-- file: PATH -->` is that file, checked by tsc itself, and is skipped here.
 * test/unit/docs.test.ts fails on any diagnostic, so a renamed option breaks the build, not the reader.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { pages } from './check.js';
import { repoRoot } from './tsdoc.js';

/** What the snippets take as given; each name is one a snippet uses without defining it. */
const kPreamble = `
import type { Redlock as RedlockType } from 'pipelock';
import type { IoredisClusterClient } from 'pipelock';
import type { RedisClientType } from '@redis/client';
declare const ioredisCluster2: IoredisClusterClient;
declare const storeClient: RedisClientType;
declare const payload: string;
declare const pages: readonly string[];
declare function write(page: string): Promise<void>;
declare function log(error: unknown): void;
declare function job(signal: AbortSignal): Promise<void>;
declare function transfer(): Promise<void>;
declare const podName: string;
declare const signal: AbortSignal;
declare function schedule(options: { fence: number; signal: AbortSignal }): Promise<void>;
`;

export interface Snippet {
  readonly page: string;
  readonly line: number;
  readonly code: string;
}

export function snippets(): Snippet[] {
  const out: Snippet[] = [];
  for (const page of pages()) {
    const lines = readFileSync(page, 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (lines[i] !== '```ts' || /^<!-- file: /.test(lines[i - 1] ?? '')) continue;
      const end = lines.findIndex((l, j) => j > i && l === '```');
      out.push({ page: relative(repoRoot, page), line: i + 2, code: lines.slice(i + 1, end).join('\n') });
      i = end;
    }
  }
  return out;
}

/** Every diagnostic of every snippet, as `page:line: message` with the snippet's own line numbers. */
export function checkSnippets(): string[] {
  const all = snippets();
  const files = new Map<string, { snippet: Snippet; text: string; offset: number }>();
  all.forEach((snippet, i) => {
    // The snippet's own imports first (an import after a declaration is still fine in a module).
    // `redlock` is given unless the snippet makes its own.
    const given = /\bconst redlock\b/.test(snippet.code) ? '' : 'declare const redlock: RedlockType;';
    const text = `${kPreamble}${given}\n${snippet.code}\nexport {};\n`;
    files.set(join(repoRoot, 'scripts', 'docs', `.snippet-${i}.ts`), { snippet, text, offset: kPreamble.split('\n').length });
  });
  const read = ts.readConfigFile(join(repoRoot, 'tsconfig.json'), (path) => ts.sys.readFile(path));
  const options = { ...ts.parseJsonConfigFileContent(read.config, ts.sys, repoRoot).options, noUnusedLocals: false };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => files.get(name)?.text ?? readFile(name);
  host.fileExists = (name) => files.has(name) || fileExists(name);
  host.getSourceFile = (name, version, onError, create) => {
    const file = files.get(name);
    return file === undefined ? getSourceFile(name, version, onError, create) : ts.createSourceFile(name, file.text, version, true);
  };
  const program = ts.createProgram({ rootNames: [...files.keys()], options, host });
  const problems: string[] = [];
  for (const [name, { snippet, offset }] of files) {
    const source = program.getSourceFile(name)!;
    for (const d of [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]) {
      const line = d.start === undefined ? 0 : source.getLineAndCharacterOfPosition(d.start).line - offset + 1;
      problems.push(`${snippet.page}:${snippet.line + line - 1}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    }
  }
  return problems;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const problems = checkSnippets();
  for (const problem of problems) console.error(problem);
  console.log(`docs snippets: ${snippets().length} checked, ${problems.length} problem(s)`);
  process.exitCode = problems.length === 0 ? 0 : 1;
}
