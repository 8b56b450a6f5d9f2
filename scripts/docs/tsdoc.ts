/** What the doc generators read from the sources: one TypeScript program over src/, its TSDoc by symbol. */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

let cached: ts.Program | undefined;

/** The program of src/index.ts and everything it reaches, with the repository's compiler options. */
export function program(): ts.Program {
  if (cached !== undefined) return cached;
  const configPath = join(repoRoot, 'tsconfig.json');
  const read = ts.readConfigFile(configPath, (path) => ts.sys.readFile(path));
  if (read.error !== undefined) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, repoRoot);
  cached = ts.createProgram({ rootNames: [join(repoRoot, 'src', 'index.ts')], options: parsed.options });
  return cached;
}

export function sourceFile(relative: string): ts.SourceFile {
  const file = program().getSourceFile(join(repoRoot, relative));
  if (file === undefined) throw new Error(`tsdoc: ${relative} is not in the program`);
  return file;
}

/** The properties of an exported interface, in declaration order (inherited and picked ones included). */
export function interfaceProperties(checker: ts.TypeChecker, relative: string, name: string): ts.Symbol[] {
  const file = sourceFile(relative);
  const declaration = file.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === name);
  if (declaration === undefined) throw new Error(`tsdoc: no interface ${name} in ${relative}`);
  return checker.getPropertiesOfType(checker.getTypeAtLocation(declaration.name));
}

const kTags: ReadonlySet<string> =
  new Set(['default', 'internal', 'param', 'returns', 'throws', 'see', 'example', 'remarks', 'deprecated']);

/**
 * Why a description would print cut short: a comment line that starts with `@word` ends the text
 * there (TSDoc reads a tag), and a text that stops mid-sentence lost its end some other way.
 */
export function descriptionProblems(text: string, tagNames: readonly string[]): string[] {
  const problems: string[] = [];
  for (const name of tagNames) if (!kTags.has(name))
    problems.push(`@${name} is read as a tag, so the description stops before it: reword the line that starts with it`);
  if (text !== '' && !/[.!?)`'"…:]$/.test(text)) problems.push(`the description ends mid-sentence: "…${text.slice(-40)}"`);
  return problems;
}

/** A symbol's TSDoc: the comment's text and its tags by name (the last of a name wins); throws when the text would print cut short. */
export function docOf(checker: ts.TypeChecker, symbol: ts.Symbol, where = symbol.getName()): { text: string; tags: Map<string, string> } {
  const text = ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim();
  const tags = new Map<string, string>();
  const jsDocTags = symbol.getJsDocTags(checker);
  for (const tag of jsDocTags) tags.set(tag.name, ts.displayPartsToString(tag.text).trim());
  const problems = descriptionProblems(text, jsDocTags.map((tag) => tag.name));
  if (problems.length > 0) throw new Error(`tsdoc: ${where}: ${problems.join('; ')}`);
  return { text, tags };
}
