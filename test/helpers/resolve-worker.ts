import { createRequire } from 'node:module';

/** A piscina worker: where each specifier resolves inside a worker thread, as the load tester's workers see it. */
export default function resolveInWorker(specifiers: readonly string[]): string[] {
  const require = createRequire(import.meta.url);
  return specifiers.map((specifier) => require.resolve(specifier));
}
