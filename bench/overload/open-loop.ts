/**
 * The open-loop half of bench:overload: `pipelock loadtest` closed loop for its maximum completed
 * cycles/s, then open loop (`--rate`) at twice that, back to back on the same embedded masters
 * settings, each in a fresh process. Past capacity an open loop must keep completing cycles at
 * about the closed loop's rate — its queue showing in the latencies and the late count — instead
 * of collapsing into errors.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../lib/host.js';
import type { RunResult } from '../../tools/src/load/result.js';

export interface LoopRun {
  readonly throughput: number;
  readonly late: number;
  readonly errors: number;
  readonly acquireP50Us: number;
  readonly acquireP99Us: number;
  readonly cycleP99Us: number;
}

export interface OpenLoopResult {
  readonly seconds: number;
  readonly closed: LoopRun;
  readonly rate: number;
  readonly open: LoopRun;
}

/** Completed cycles/s of the open loop at 2× the closed loop's, as a share of the closed loop's. */
export const kOpenLoopTarget = 0.9;

function loadtest(args: readonly string[]): Promise<LoopRun> {
  const dir = mkdtempSync(join(tmpdir(), 'pipelock-open-loop-'));
  const json = join(dir, 'run.json');
  return new Promise<LoopRun>((resolve, reject) => {
    const child = spawn(process.execPath, ['--conditions=pipelock-source', '--import', 'tsx', join(ROOT, 'tools', 'src', 'cli', 'main.ts'), 'loadtest', ...args, '--json', json], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err = (err + chunk.toString('utf8')).slice(-2000)));
    child.once('close', (code) => {
      try {
        if (code !== 0) throw new Error(`loadtest ${args.join(' ')} exited ${String(code)}: ${err.trim().split('\n').slice(-2).join(' | ')}`);
        const run = JSON.parse(readFileSync(json, 'utf8')) as RunResult;
        resolve({
          throughput: run.throughput,
          late: run.late ?? 0,
          errors: Object.values(run.errors).reduce((a, b) => a + b, 0),
          acquireP50Us: run.operations.acquire.p50,
          acquireP99Us: run.operations.acquire.p99,
          cycleP99Us: run.operations.cycle.p99,
        });
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}

/**
 * In flight per worker in the closed loop: the open loop's own bound (tools/src/load/loops.ts), so the
 * closed loop's figure is the maximum the open loop could reach (at 16 in flight it is not).
 */
export const kClosedInFlight = 256;

/** Closed loop, then open loop at twice its throughput: `seconds` measured each. */
export async function openLoop(seconds: number): Promise<OpenLoopResult> {
  const common = ['--duration', `${seconds}s`, '--keys', '1000000'];
  const closed = await loadtest([...common, '--concurrency', String(kClosedInFlight)]);
  const rate = Math.round(2 * closed.throughput);
  const open = await loadtest([...common, '--rate', String(rate)]);
  return { seconds, closed, rate, open };
}
