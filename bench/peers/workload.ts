/**
 * The closed-loop workload every contender runs: `concurrency` loops, each acquire → release →
 * next key at once. A warm-up first (connections, scripts, JIT), then a fixed measuring window;
 * only cycles that complete inside the window count.
 */
import { setImmediate as yieldLoop } from 'node:timers/promises';
import { build, type Histogram } from 'hdr-histogram-js';
import { REFUSED, type Contender, type WorkloadConfig } from './contender.js';
import type { RedisCpu } from './redis-cpu.js';
import { perCyclePerMaster, syscalls, type Syscalls } from './syscalls.js';

export interface Percentiles {
  /** Microseconds. */
  readonly p50: number;
  readonly p99: number;
  readonly p999: number;
}

export interface Measurement {
  readonly seconds: number;
  /** Acquired and released inside the window. */
  readonly cycles: number;
  /** Acquisitions the masters refused (the hot key), counted like cycles. */
  readonly refused: number;
  readonly errors: number;
  readonly firstError: string | undefined;
  readonly cyclesPerSec: number;
  readonly refusedPerSec: number;
  /** Every acquisition attempt, won or refused. */
  readonly acquire: Percentiles;
  readonly release: Percentiles;
  /** process.cpuUsage() (user + system) over the window ÷ cycles, µs; the hot key divides by attempts. */
  readonly clientCpuUsPerCycle: number;
  /** Its kernel part (process.cpuUsage().system): socket writes and reads, epoll, timers. */
  readonly clientSystemCpuUsPerCycle: number;
  /** Every master's used_cpu_sys + used_cpu_user over the window, summed, ÷ cycles (attempts on the hot key), µs. */
  readonly redisCpuUsPerCycle: number;
  /** Commands the masters executed (a script's own calls included) ÷ cycles (attempts on the hot key). */
  readonly redisCommandsPerCycle: number;
  /** Of which script calls (EVALSHA, EVAL, FCALL). */
  readonly redisScriptCallsPerCycle: number;
  /** The client's read/write system calls (/proc/self/io) ÷ cycles (attempts on the hot key) ÷ masters; Linux only. */
  readonly syscallsPerCyclePerMaster?: Syscalls;
}

export interface WorkloadTiming {
  readonly warmupMs: number;
  readonly durationMs: number;
}

/** Told when the measured window starts and ends (bench/peers/cluster.ts counts script calls over it). */
export interface WindowProbe {
  start(): Promise<void>;
  end(): Promise<void>;
}

const kMaxErrors = 10_000;

function histogram(): Histogram {
  return build({ lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: 3 });
}

function percentiles(h: Histogram): Percentiles {
  return { p50: h.getValueAtPercentile(50), p99: h.getValueAtPercentile(99), p999: h.getValueAtPercentile(99.9) };
}

export async function runWorkload(contender: Contender, config: WorkloadConfig, timing: WorkloadTiming, redisCpu: RedisCpu, probe?: WindowProbe): Promise<Measurement> {
  const acquireHist = histogram();
  const releaseHist = histogram();
  let measuring = false;
  let stopping = false;
  let cycles = 0;
  let refused = 0;
  let errors = 0;
  let firstError: string | undefined;
  const hot = config.keys === 1;

  const onError = async (error: unknown): Promise<void> => {
    errors++;
    firstError ??= error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    if (errors > kMaxErrors) stopping = true;
    // A contender that fails at once must not starve the timers that end the run.
    await yieldLoop();
  };

  const loop = async (): Promise<void> => {
    while (!stopping) {
      const key = hot ? 'bench:hot' : `bench:${Math.floor(Math.random() * config.keys)}`;
      const t0 = performance.now();
      let lock: unknown;
      try {
        lock = await contender.acquire(key);
      } catch (error) {
        await onError(error);
        continue;
      }
      const t1 = performance.now();
      if (lock === REFUSED) {
        if (measuring) {
          refused++;
          acquireHist.recordValue(Math.max(1, Math.round((t1 - t0) * 1000)));
        }
        continue;
      }
      try {
        await contender.release(lock);
      } catch (error) {
        await onError(error);
        continue;
      }
      if (measuring) {
        const t2 = performance.now();
        cycles++;
        acquireHist.recordValue(Math.max(1, Math.round((t1 - t0) * 1000)));
        releaseHist.recordValue(Math.max(1, Math.round((t2 - t1) * 1000)));
      }
    }
  };

  const loops: Promise<void>[] = [];
  for (let i = 0; i < config.concurrency; i++) loops.push(loop());

  await new Promise((resolve) => setTimeout(resolve, timing.warmupMs));
  const [redis0] = await Promise.all([redisCpu.sample(), probe?.start()]);
  const io0 = syscalls();
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  measuring = true;
  await new Promise((resolve) => setTimeout(resolve, timing.durationMs));
  measuring = false;
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const io1 = syscalls();
  const [redis1] = await Promise.all([redisCpu.sample(), probe?.end()]);
  stopping = true;
  await Promise.all(loops);

  const per = hot ? cycles + refused : cycles;
  return {
    seconds,
    cycles,
    refused,
    errors,
    firstError,
    cyclesPerSec: cycles / seconds,
    refusedPerSec: refused / seconds,
    acquire: percentiles(acquireHist),
    release: percentiles(releaseHist),
    clientCpuUsPerCycle: per > 0 ? (cpu.user + cpu.system) / per : NaN,
    clientSystemCpuUsPerCycle: per > 0 ? cpu.system / per : NaN,
    redisCpuUsPerCycle: per > 0 ? ((redis1.seconds - redis0.seconds) * 1e6) / per : NaN,
    redisCommandsPerCycle: per > 0 ? (redis1.commands - redis0.commands) / per : NaN,
    redisScriptCallsPerCycle: per > 0 ? (redis1.scriptCalls - redis0.scriptCalls) / per : NaN,
    syscallsPerCyclePerMaster: perCyclePerMaster(io0, io1, per, redisCpu.masters),
  };
}
