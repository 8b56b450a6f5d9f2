import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tsFlags } from './ts-flags.js';

/** The CLI tests' process helpers: run `pipelock …` from source and watch what it leaves behind. */
export const root = fileURLToPath(new URL('../..', import.meta.url));
const main = join(root, 'tools', 'src', 'cli', 'main.ts');

export interface Exit { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }

/** Runs `pipelock …` from source as `npm run loadtest` does; `onStart` gets the child once its workers started. */
export function cli(args: string[], options: { env?: NodeJS.ProcessEnv; limitMs?: number; onStart?: (child: ChildProcess) => void } = {}): Promise<Exit> {
  const child = spawn(process.execPath, [...tsFlags(), main, ...args], { cwd: root, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    if (options.onStart !== undefined && stderr.includes('workers started')) {
      const onStart = options.onStart;
      delete options.onStart;
      onStart(child);
    }
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), options.limitMs ?? 30_000);
  return new Promise((resolve) => {
    child.once('close', (code, signal) => {
      clearTimeout(killer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** The child processes of `pid` (its redis-servers, tsx's esbuild service). */
export function childrenOf(pid: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
  } catch {
    return []; // pgrep exits 1 when there are none
  }
}

/**
 * The children still running a moment after the CLI exited: its redis-servers are killed and reaped
 * before it exits; tsx's esbuild service (a child only when run from source) leaves when its pipe closes.
 */
export async function survivors(children: readonly number[]): Promise<number[]> {
  for (let waited = 0; ; waited += 50) {
    const running = children.filter(alive);
    if (running.length === 0 || waited >= 3_000) return running;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Still running: exists and is not a zombie (an exited child whose new parent has not reaped it yet). */
export function alive(pid: number): boolean {
  try {
    return !execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).trim().startsWith('Z');
  } catch {
    return false; // ps exits 1 when there is no such process
  }
}
