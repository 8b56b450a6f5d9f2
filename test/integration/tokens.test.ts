import '../helpers/setup.js';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { mastersSuite } from '../helpers/masters.js';
import { timed } from '../helpers/timeout.js';
import { produceTokens, type ProducerJob } from '../helpers/token-producer.js';
import { tsFlags } from '../helpers/ts-flags.js';

// Lock tokens (src/protocol/token.ts) are the owner check every release, extend and handover relies
// on: tokens made in different processes and worker threads must not repeat, nor be predictable. A
// per-process counter passes every test within one process; here tokens come from real acquisitions
// in two child processes, two worker threads and this process, and are compared and tested together.
const test = mastersSuite('tokens', { count: 5 });

const kProducer = new URL('../helpers/token-producer.ts', import.meta.url);
const kPerProducer = 600;
const kTokenBytes = 20;
// 5 producers × 600 tokens × 20 bytes. A sound CSPRNG fails the monobit check with probability
// 5.7e-7 (|z| ≥ 5, two-sided) and the chi-square with 2.9e-7 (z ≥ 5): below 1e-6 a run together.
const kZ = 5;

function inWorker(job: ProducerJob): Promise<string[]> {
  // tsx registered inside the worker (as bench/contended does): a worker does not inherit --import.
  const boot = `import('tsx/esm/api').then((tsx) => tsx.register()).then(() => import(${JSON.stringify(kProducer.href)}))`;
  const worker = new Worker(boot, { eval: true, workerData: job });
  return new Promise((resolve, reject) => {
    worker.once('message', (tokens: string[]) => {
      resolve(tokens);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      reject(new Error(`token worker exited with ${code} before answering`));
    });
  });
}

function inChild(job: ProducerJob): Promise<string[]> {
  const child = spawn(process.execPath, [...tsFlags(), fileURLToPath(kProducer), '--child', JSON.stringify(job)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('close', (code) => {
      if (code === 0) resolve(JSON.parse(stdout) as string[]);
      else reject(new Error(`token child exited with ${code}: ${stderr}`));
    });
  });
}

/** The upper tail point of a chi-square with `df` degrees of freedom at normal deviate `z` (Wilson–Hilferty). */
function chiSquareBound(df: number, z: number): number {
  const a = 2 / (9 * df);
  return df * (1 - a + z * Math.sqrt(a)) ** 3;
}

test('tokens from two child processes, two worker threads and this process: none repeats; their bits and bytes are uniform', timed(90_000, async ({ masters }) => {
  const job = (prefix: string): ProducerJob => ({ urls: masters.urls, count: kPerProducer, prefix });
  const batches = await Promise.all([inChild(job('child-a')), inChild(job('child-b')), inWorker(job('worker-a')), inWorker(job('worker-b')), produceTokens(job('main'))]);
  const tokens = batches.flat();
  assert.is(tokens.length, 5 * kPerProducer);

  const seen = new Map<string, number>();
  batches.forEach((batch, producer) => {
    for (const token of batch) {
      const other = seen.get(token);
      assert.is(other, undefined, `token ${token} made by producer ${producer} and producer ${other}`);
      seen.set(token, producer);
    }
  });

  const bytes = tokens.map((token) => Buffer.from(token, 'base64url'));
  for (const b of bytes) assert.is(b.length, kTokenBytes);

  // Monobit (NIST SP 800-22 §2.1): the count of one bits over all n bits is Binomial(n, 1/2).
  let ones = 0;
  for (const b of bytes) for (const byte of b) for (let v = byte; v !== 0; v &= v - 1) ones++;
  const n = bytes.length * kTokenBytes * 8;
  const z = Math.abs(2 * ones - n) / Math.sqrt(n);
  assert.ok(z < kZ, `monobit: ${ones} ones in ${n} bits, |z| = ${z.toFixed(2)}`);

  // Each byte position's values uniform over 0..255: Pearson's chi-square summed over the 20 positions.
  const expected = bytes.length / 256;
  let chi = 0;
  for (let position = 0; position < kTokenBytes; position++) {
    const counts = new Array<number>(256).fill(0);
    for (const b of bytes) counts[b[position]!]!++;
    for (const count of counts) chi += (count - expected) ** 2 / expected;
  }
  const df = kTokenBytes * 255;
  const bound = chiSquareBound(df, kZ);
  assert.ok(chi < bound, `byte frequencies: chi-square ${chi.toFixed(0)} over ${df} degrees of freedom (bound ${bound.toFixed(0)})`);
}));

test.run();
