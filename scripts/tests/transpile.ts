/**
 * The project's TypeScript as JavaScript for one test run: every .ts module under the directories the
 * tests load from, transpiled by esbuild (as tsx does, module by module, types stripped) into a mirror
 * tree that scripts/tests/loader/ serves in place of the sources. One build of ~530 files took 2.2 s;
 * tsx in every test process cost about one second of CPU each (docs/development.md).
 */
import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { build } from 'esbuild';

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
  await build({
    entryPoints, outdir: out, outbase: root, bundle: false, format: 'esm', platform: 'node', target: 'node20',
    sourcemap: 'inline', tsconfig: join(root, 'tsconfig.json'), logLevel: 'error', write: true,
  });
  return entryPoints.length;
}
