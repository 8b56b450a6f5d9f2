/**
 * `npm run lint` part two: the import graphs of src/ and tools/src/ have no cycle, type-only imports included.
 * dpdm reads the sources with the TypeScript compiler itself (so `import type` counts as tsc sees
 * it) and is a small, maintained package; madge would add a dozen parser packages for the same.
 *
 * One edge is exempt, and only that edge: lock.ts names the type of `lock.redlock` (a Redlock), as
 * node-redlock's Lock does, while redlock.ts makes Locks. A Lock and its Redlock are one public
 * API type pair; every other cycle through either file still fails the check.
 */
import { parseCircular, parseDependencyTree, prettyCircular } from 'dpdm';

const kExempt = [['src/lifecycle/lock.ts', 'src/redlock.ts']] as const;

// tools/src reaches the library through `pipelock`, which the tsconfig's pipelock-source condition resolves to src/.
const tree = await parseDependencyTree(['src/**/*.ts', 'tools/src/**/*.ts'], { tsconfig: 'tsconfig.json', transform: false, skipDynamicImports: false });
const cycles = parseCircular(tree, false, kExempt);
if (cycles.length > 0) {
  console.error(`check-cycles: ${cycles.length} import cycle(s) in src/ or tools/src/ (type-only imports count):\n${prettyCircular(cycles)}`);
  process.exitCode = 1;
} else {
  console.log(`check-cycles: no import cycle among ${Object.keys(tree).filter((file) => file.startsWith('src/')).length} files of src/ (exempt: ${kExempt.map(([a, b]) => `${a} -> ${b}`).join(', ')})`);
}
