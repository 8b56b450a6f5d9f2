/**
 * The project's TypeScript as JavaScript for one test run: every .ts module under the directories the
 * tests load from, transpiled by esbuild (as tsx does, module by module, types stripped) into a mirror
 * tree that scripts/tests/loader/ serves in place of the sources. One build of ~530 files took 2.2 s;
 * tsx in every test process cost about one second of CPU each (docs/development.md).
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type OutputFile } from 'esbuild';

/** Where the tests' modules live, relative to the repository root. */
const kSourceDirs = ['src', 'test', 'bench', 'scripts', 'examples', 'sim', 'tools/src', 'artillery-engine-pipelock/src'];

async function modules(root: string): Promise<string[]> {
  const found: string[] = [];
  for (const dir of kSourceDirs) {
    const entries = await readdir(join(root, dir), { recursive: true, withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.endsWith('.d.ts')) continue;
      const path = join(entry.parentPath, entry.name);
      if (!relative(root, path).split('/').includes('node_modules')) found.push(path);
    }
  }
  return found;
}

/** Transpiles the modules into `out` (a new directory per run: run-tests names it by its pid), keeping their paths relative to `root`. */
export async function transpile(root: string, out: string): Promise<number> {
  const entryPoints = await modules(root);
  const { outputFiles } = await build({
    entryPoints, outdir: out, outbase: root, bundle: false, format: 'esm', platform: 'node', target: 'node20',
    sourcemap: 'inline', tsconfig: join(root, 'tsconfig.json'), logLevel: 'error', write: false,
  });
  const dirs = new Set(outputFiles.map((file) => dirname(file.path)));
  await Promise.all([...dirs].map((dir) => mkdir(dir, { recursive: true })));
  const sourceOf = (file: OutputFile): string => join(root, `${relative(out, file.path).slice(0, -3)}.ts`);
  await Promise.all(outputFiles.map((file) => writeFile(file.path, withSource(file, sourceOf(file)))));
  return entryPoints.length;
}

const kMapPrefix = '//# sourceMappingURL=data:application/json;base64,';

/**
 * The output with its source map naming `source` by absolute URL: esbuild names it relative to the
 * output file, which the loader serves under the source's own URL, where that relative path points
 * elsewhere (stack traces named /test/helpers/… for /work/…/test/helpers/…).
 */
function withSource(file: OutputFile, source: string): string {
  const text = file.text;
  const at = text.lastIndexOf(kMapPrefix);
  if (at === -1) return text;
  const map = JSON.parse(Buffer.from(text.slice(at + kMapPrefix.length).trim(), 'base64').toString('utf8')) as { sources: string[] };
  map.sources = [pathToFileURL(source).href];
  return `${text.slice(0, at)}${kMapPrefix}${Buffer.from(JSON.stringify(map)).toString('base64')}\n`;
}
