// Hooks of register.mjs. A module keeps its own .ts URL (import.meta.url, stack traces through the
// inline source map), and its source is the transpiled file at the same path under `out`; a file
// not transpiled before the run is transpiled here, as tsx would.
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL, URL } from 'node:url';
import { transformSync } from 'esbuild';

const rootPath = fileURLToPath(new URL('../../../', import.meta.url));
const root = pathToFileURL(rootPath).href;
let out;
/** tsconfig.json's `paths` (exact names only: pipelock → src/index.ts), as tsx applies them. */
let paths = new Map();

export function initialize(data) {
  // Without a transpiled tree (a test file run by hand with this loader) every module is transpiled here.
  out = typeof data?.out === 'string' && data.out !== '' ? data.out : undefined;
  const config = JSON.parse(readFileSync(new URL('tsconfig.json', root), 'utf8'));
  paths = new Map(Object.entries(config.compilerOptions?.paths ?? {}).map(([name, [target]]) => [name, new URL(target, root).href]));
}

/** The project's own `./x.js` imports name `./x.ts` files, as TypeScript's node16 resolution allows. */
export async function resolve(specifier, context, next) {
  const mapped = paths.get(specifier);
  if (mapped !== undefined && mapped.endsWith('.ts')) return { url: mapped, format: 'module', shortCircuit: true };
  if (specifier.endsWith('.js') && (specifier.startsWith('.') || specifier.startsWith('file:')) && context.parentURL?.startsWith('file:')) {
    const url = new URL(specifier, context.parentURL);
    if (!existsSync(url)) {
      const ts = new URL(`${url.href.slice(0, -3)}.ts`);
      if (existsSync(ts)) return { url: ts.href, format: 'module', shortCircuit: true };
    }
  }
  return next(specifier, context);
}

export async function load(url, context, next) {
  if (!url.endsWith('.ts') || !url.startsWith('file:')) return next(url, context);
  // The project's own modules were transpiled before the run; others (the simulator's planted-bug
  // copies of src/ under node_modules/.cache, a file created since) are transpiled here.
  const path = fileURLToPath(url);
  const js = out !== undefined && url.startsWith(root) && !url.includes('/node_modules/')
    ? join(out, `${relative(rootPath, path).slice(0, -3)}.js`) : undefined;
  if (js !== undefined && existsSync(js)) return { format: 'module', source: readFileSync(js, 'utf8'), shortCircuit: true };
  const { code } = transformSync(readFileSync(path, 'utf8'), {
    loader: 'ts', format: 'esm', tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } }, platform: 'node', target: 'node20', sourcemap: 'inline', sourcefile: path,
  });
  return { format: 'module', source: code, shortCircuit: true };
}
