import { spawn } from 'node:child_process';
import type { Samples } from './key-sampler.js';
import { tsFlags } from './ts-flags.js';

const kScript = new URL('./key-sampler.ts', import.meta.url);

/**
 * Starts a key sampler in a child process (its loop runs while the test's is blocked); resolves,
 * once it is sampling, with `done`: its samples when it ends.
 */
export async function sampleKeys(urls: readonly string[], keys: readonly string[], ms: number, every = 50): Promise<{ readonly done: Promise<Samples> }> {
  const child = spawn(process.execPath, [...tsFlags(), kScript.pathname, JSON.stringify({ urls, keys, ms, every })], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  let started: () => void = () => undefined;
  const sampling = new Promise<void>((resolve) => { started = resolve; });
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    if (out.startsWith('sampling\n')) started();
  });
  const done = new Promise<Samples>((resolve, reject) => {
    child.on('exit', (code) => {
      const last = out.trim().split('\n').at(-1) ?? '';
      if (code === 0 && last.startsWith('{')) resolve(JSON.parse(last) as Samples);
      else reject(new Error(`key sampler exited with ${String(code)}: ${out}`));
    });
  });
  await Promise.race([sampling, done]);
  return { done };
}
