/**
 * Runs the real `artillery run` (installed by scripts/ensure-artillery.sh) with
 * artillery-engine-pipelock from source. The rule for finding it is that script's:
 * PIPELOCK_ARTILLERY when set, else the pinned install in ${XDG_CACHE_HOME:-$HOME/.cache}/pipelock.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { root } from './cli.js';

/** The version scripts/ensure-artillery.sh installs. */
export const kArtilleryVersion = '2.0.34';

/** The artillery command to run; throws with the fix when there is none. */
export function artilleryBin(): string {
  const fromEnv = process.env.PIPELOCK_ARTILLERY;
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  const cacheHome = process.env.XDG_CACHE_HOME;
  const cache = join(cacheHome === undefined || cacheHome === '' ? join(homedir(), '.cache') : cacheHome, 'pipelock');
  const bin = join(cache, `artillery-${kArtilleryVersion}`, 'node_modules', '.bin', 'artillery');
  try {
    accessSync(bin, constants.X_OK);
  } catch (error) {
    throw new Error(`Artillery not found at ${bin}: run npm run ensure-artillery (it installs artillery@${kArtilleryVersion} there) or set PIPELOCK_ARTILLERY=/path/to/artillery`, { cause: error });
  }
  return bin;
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
