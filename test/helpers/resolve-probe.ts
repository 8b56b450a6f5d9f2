/** Prints where each specifier in argv[2] (JSON) resolves in this process and in a piscina worker thread. */
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';

const specifiers = JSON.parse(process.argv[2]!) as string[];
const pool = new Piscina<string[], string[]>({ filename: new URL('./resolve-worker.ts', import.meta.url).href, minThreads: 1, maxThreads: 1 });
try {
  const main = specifiers.map((specifier) => fileURLToPath(import.meta.resolve(specifier)));
  console.log(JSON.stringify({ main, worker: await pool.run(specifiers) }));
} finally {
  await pool.destroy();
}
