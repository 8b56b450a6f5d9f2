/**
 * Runs the real `artillery run` (installed by scripts/ensure-artillery.sh) with
 * artillery-engine-pipelock from source.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { root } from './cli.js';

/**
 * The artillery command, as scripts/ensure-artillery.sh finds it (PIPELOCK_ARTILLERY, else its
 * pinned install; the script holds the version and the path, answering from its cache in ~0.3 s):
 * the last line it prints, "ensure-artillery: PATH". Throws with the script's own message when it fails.
 */
export function artilleryBin(): string {
  const found = spawnSync('bash', [join(root, 'scripts', 'ensure-artillery.sh')], { encoding: 'utf8' });
  const path = /^ensure-artillery: (\S.*)$/m.exec(found.stdout)?.[1];
  if (found.status !== 0 || path === undefined) throw new Error(`scripts/ensure-artillery.sh exited ${String(found.status)}: ${found.stderr.trim()}`);
  return path;
}

export interface ArtilleryExit { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }

/**
 * `artillery run --output report script` with `workers` local worker threads. Artillery loads an
 * engine with require.resolve('artillery-engine-<name>') from its own install (then NODE_PATH), and
 * the workspace package's `main` is its build, absent in a checkout (tsx's tsconfig paths do not
 * apply to a require from node_modules): a one-line package in `dir` points it at the source
 * instead, which tsx runs (preloaded through NODE_OPTIONS, so in Artillery's worker threads too).
 */
export async function artilleryRun(dir: string, script: string, report: string, options: { workers: number; limitMs: number }): Promise<ArtilleryExit> {
  const shim = join(dir, 'node_modules', 'artillery-engine-pipelock');
  await mkdir(shim, { recursive: true });
  await writeFile(join(shim, 'package.json'), JSON.stringify({ name: 'artillery-engine-pipelock', main: 'index.cjs' }));
  await writeFile(join(shim, 'index.cjs'), `module.exports = require(${JSON.stringify(join(root, 'artillery-engine-pipelock', 'src', 'index.cts'))});\n`);
  const preload = pathToFileURL(join(root, 'test', 'helpers', 'artillery-cpus.mjs')).href;
  const env = {
    ...process.env,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --conditions=pipelock-source --import tsx --import ${preload}`.trim(),
    NODE_PATH: join(dir, 'node_modules'),
    PIPELOCK_ARTILLERY_WORKERS: String(options.workers),
    ARTILLERY_DISABLE_TELEMETRY: 'true',
  };
  // cwd: tsx reads the repository's tsconfig paths (pipelock, pipelock-tools/driver → their sources) from it.
  const child = spawn(artilleryBin(), ['run', '--output', report, script], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const killer = setTimeout(() => child.kill('SIGKILL'), options.limitMs);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(killer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}
