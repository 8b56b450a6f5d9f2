/**
 * `npm run lint` part two: the shape of src/ holds by check, not by memory.
 * 1. The import graphs of src/ and tools/src/ have no cycle, type-only imports included, and no
 *    exemption: a Lock names its owner through an interface (LockOwner) the facade implements.
 * 2. src/ is layered: each folder (and each file at the root) has a rank, and a file imports only
 *    files of a lower rank or of its own folder.
 * 3. A folder with a size limit (FOLDER_LIMITS) holds at most that many files of its own (its
 *    subfolders are rooms of their own): src/lifecycle/ is one lock's life, not where what has no
 *    home is filed.
 * dpdm reads the sources with the TypeScript compiler itself (so `import type` counts as tsc sees
 * it) and is a small, maintained package; madge would add a dozen parser packages for the same.
 */
import { parseCircular, parseDependencyTree, prettyCircular } from 'dpdm';

/**
 * The layers, lowest first: util and the public client types; errors; settings and the wire
 * protocol; the client seam; the quorum engine; admission and the server's push; waiting; the lock
 * lifecycle; the lock kinds; the facade; what is built on the facade; the entry points. testing/
 * (the local masters behind `pipelock/testing`) stands apart and imports nothing of the library.
 */
export const RANKS: Readonly<Record<string, number>> = Object.freeze({
  'src/util': 0,
  'src/testing': 0,
  'src/clients.ts': 0,
  'src/errors.ts': 1,
  'src/settings.ts': 2,
  'src/protocol': 2,
  'src/transport': 3,
  'src/engine': 4,
  'src/admission': 5,
  'src/watch': 5,
  'src/waiting': 6,
  'src/lifecycle': 7,
  'src/kinds': 8,
  'src/rooms.ts': 8,
  'src/redlock.ts': 9,
  'src/recipes': 10,
  'src/metrics': 10,
  'src/acl.ts': 10,
  'src/index.ts': 11,
  'src/index.cts': 11,
  'src/metrics.cts': 11,
  'src/testing.cts': 11,
  'src/protocol.cts': 11,
});

/** Folders of src/ and the most files each may hold directly (not counting its subfolders' files). */
export const FOLDER_LIMITS: Readonly<Record<string, number>> = Object.freeze({
  'src/lifecycle': 12,
});

/** Every folder of FOLDER_LIMITS that holds more files directly than its limit, as a line naming them. */
export function folderViolations(files: readonly string[], limits: Readonly<Record<string, number>> = FOLDER_LIMITS): string[] {
  const problems: string[] = [];
  for (const [folder, limit] of Object.entries(limits)) {
    const own = files.filter((file) => file.startsWith(`${folder}/`) && !file.slice(folder.length + 1).includes('/'));
    if (own.length > limit) {
      const names = own.map((file) => file.slice(folder.length + 1)).join(', ');
      problems.push(`${folder} holds ${own.length} files, more than its ${limit}: ${names}`);
    }
  }
  return problems;
}

/** The layer of a file of src/: its top folder, or the file itself at the root; undefined outside src/. */
export function layerOf(file: string): string | undefined {
  const match = /^src\/([^/]+)(\/)?/.exec(file);
  if (match === null) return undefined;
  return match[2] === '/' ? `src/${match[1]!}` : file;
}

/** Every import that goes up (or across to a layer of the same rank that is another folder), as `from -> to` lines. */
export function rankViolations(tree: Readonly<Record<string, readonly { id: string | null }[] | null>>): string[] {
  const problems: string[] = [];
  for (const [file, deps] of Object.entries(tree)) {
    const from = layerOf(file);
    if (from === undefined) continue;
    const rank = RANKS[from];
    if (rank === undefined) {
      problems.push(`${file}: its layer ${from} has no rank in scripts/check-layers.ts`);
      continue;
    }
    for (const dep of deps ?? []) {
      const to = dep.id === null ? undefined : layerOf(dep.id);
      if (to === undefined || to === from) continue;
      const other = RANKS[to];
      if (other === undefined || other >= rank)
        problems.push(`${file} -> ${dep.id!} (${from} rank ${rank} -> ${to} rank ${String(other)})`);
    }
  }
  return problems;
}

async function main(): Promise<void> {
  // tools/src reaches the library through `pipelock`, which the tsconfig's paths resolve to src/.
  const tree = await parseDependencyTree(['src/**/*.ts', 'src/*.cts', 'tools/src/**/*.ts'],
    { tsconfig: 'tsconfig.json', transform: false, skipDynamicImports: false });
  const cycles = parseCircular(tree, false);
  const ranks = rankViolations(tree);
  if (cycles.length > 0)
    console.error(`check-layers: ${cycles.length} import cycle(s) in src/ or tools/src/ (type-only imports `
      + `count):\n${prettyCircular(cycles)}`);
  if (ranks.length > 0)
    console.error(`check-layers: ${ranks.length} import(s) against the layers of src/ (a file imports only lower ranks or its own `
      + `folder):\n  ${ranks.join('\n  ')}`);
  const sizes = folderViolations(Object.keys(tree));
  if (sizes.length > 0)
    console.error(`check-layers: ${sizes.length} folder(s) of src/ past their file limit (scripts/check-layers.ts FOLDER_LIMITS; move `
      + `what is not the folder's concept to its own, or merge files that are one concept):\n  ${sizes.join('\n  ')}`);
  if (cycles.length > 0 || ranks.length > 0 || sizes.length > 0) {
    process.exitCode = 1;
    return;
  }
  const files = Object.keys(tree).filter((file) => file.startsWith('src/')).length;
  console.log(`check-layers: no import cycle and no import against the layers among ${files} files of src/ (and tools/src/); no exemption; `
    + `every folder within its file limit`);
}

if (process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, ''))) await main();
