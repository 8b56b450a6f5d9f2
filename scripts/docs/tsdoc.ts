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

/** A symbol's TSDoc: the comment's text and its tags by name (the last of a name wins). */
export function docOf(checker: ts.TypeChecker, symbol: ts.Symbol): { text: string; tags: Map<string, string> } {
  const text = ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim();
  const tags = new Map<string, string>();
  for (const tag of symbol.getJsDocTags(checker)) tags.set(tag.name, ts.displayPartsToString(tag.text).trim());
  return { text, tags };
}
