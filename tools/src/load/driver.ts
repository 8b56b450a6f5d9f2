/**
 * pipelock cycles on another load generator's schedule (an Artillery engine's virtual users): each
 * call runs one cycle of a mix entry, measured as `pipelock loadtest` measures its own, and the whole
 * is a result file that `pipelock report merge` adds up exactly across processes and machines.
 */
import { Redlock } from 'pipelock';
import type { CycleContext, Timings } from './cycle.js';
import { hostLine, type HostLine } from './host.js';
import { memberOf } from './members.js';
import { Meter } from './meter.js';
import { Mix } from './mix.js';
import { runsUnderUsing } from './options.js';
import { Parts } from './parts.js';
import { buildResult, type RunResult, type TimelinePoint } from './result.js';
import { partsOf } from './result-parts.js';
import type { MixEntry } from './scenario.js';
import { probeServers } from './servers.js';

const kReadyTimeoutMs = 5_000;

export interface DriverOptions {
  /** Master URLs, as `--servers` takes them. */
  readonly servers: readonly string[];
  /** What each cycle can be; `cycle(i)` runs entry i. Each takes keys under its own prefix. */
  readonly entries: readonly MixEntry[];
  readonly lockMs: number;
  readonly retryCount: number;
  readonly retryDelayMs: number;
  readonly retryJitterMs: number;
  /** Every key starts with it: a run's keys stay apart from other runs' and the service's own. */
  readonly prefix: string;
  /** What the host line records of the generator besides the settings above (its name, its phases). */
  readonly flags: HostLine['flags'];
}

/** One cycle's figures, ms: what the generator reports as its own metrics. */
export interface CycleFigures {
  readonly acquireMs: number;
  /** −1 when the entry's operation does not extend. */
  readonly extendMs: number;
  readonly releaseMs: number;
  readonly cycleMs: number;
}

/** One process's cycles: a Redlock, a meter over all of them and one part per entry. */
export class Driver {
  readonly #redlock: Redlock;
  readonly #mix: Mix;
  readonly #options: DriverOptions;
  readonly #versions: readonly string[];
  readonly #meter: Meter;
  readonly #parts: Parts;
  readonly #timeline = new Map<number, { cycles: number; errors: number }>();
  readonly #cancel = new AbortController();
  readonly #startedAt = new Date();
  /** The first cycle's start and the last cycle's end, on performance.now() and the wall clock. */
  #from: { at: number; wall: number; cpu: NodeJS.CpuUsage; elu: ReturnType<typeof performance.eventLoopUtilization> } | undefined;
  #to = 0;

  private constructor(redlock: Redlock, options: DriverOptions, versions: readonly string[]) {
    this.#redlock = redlock;
    this.#options = options;
    this.#versions = versions;
    // using() hides its Lock, so its attempts are unknown.
    this.#meter = new Meter({ contenders: 0, attempts: !options.entries.every((e) => runsUnderUsing(e.operation)) });
    const base: Omit<CycleContext, 'acquire' | 'using' | 'holdMs' | 'hold' | 'redlock'> = {
      lockMs: options.lockMs, call: { signal: this.#cancel.signal }, stopped: new Promise(() => undefined),
        countAttempts: options.retryCount !== 0,
    };
    this.#mix = new Mix(options.entries, redlock, base, options.prefix);
    this.#parts = new Parts(options.entries.length, 1);
  }

  /** Connects to every master (failing with the first unreachable one) and waits for the Redlock to be ready. */
  static async open(options: DriverOptions): Promise<Driver> {
    if (options.entries.length === 0) throw new RangeError('Driver needs at least one mix entry');
    const versions = await probeServers(options.servers);
    const redlock = new Redlock(options.servers.map(memberOf),
      { retryCount: options.retryCount, retryDelay: options.retryDelayMs, retryJitter: options.retryJitterMs });
    try {
      await redlock.ready(kReadyTimeoutMs);
    } catch (error) {
      await redlock.quit();
      throw error;
    }
    return new Driver(redlock, options, versions);
  }

  /** Runs one cycle of entry `index`; records it, and returns its figures or throws what pipelock threw (recorded by its code). */
  async cycle(index: number): Promise<CycleFigures> {
    const entry = this.#mix.entries[index];
    if (entry === undefined) throw new RangeError(`Driver.cycle: entry ${index} does not exist (there are ${this.#mix.entries.length})`);
    const start = performance.now();
    this.#from ??= { at: start, wall: Date.now(), cpu: process.cpuUsage(), elu: performance.eventLoopUtilization() };
    const out: Timings = { acquireMs: 0, extendMs: -1, releaseMs: 0, attempts: 1 };
    try {
      await entry.cycle(entry.context, [entry.prefix + String(entry.key())], start, out);
    } catch (error) {
      this.#meter.failed(error, true);
      this.#parts.failed(index, 0, error);
      this.#tick(performance.now(), 'errors');
      throw error;
    }
    const end = performance.now();
    const cycleMs = end - start;
    this.#meter.done(out, cycleMs, true);
    this.#parts.done(index, 0, out, cycleMs);
    this.#tick(end, 'cycles');
    return { acquireMs: out.acquireMs, extendMs: out.extendMs, releaseMs: out.releaseMs, cycleMs };
  }

  #tick(at: number, what: 'cycles' | 'errors'): void {
    this.#to = Math.max(this.#to, at);
    // Second s covers ((s − 1) s, s s] from the first start, as a loadtest's timeline does.
    const second = Math.max(1, Math.ceil((at - this.#from!.at) / 1000));
    const point = this.#timeline.get(second) ?? { cycles: 0, errors: 0 };
    point[what]++;
    this.#timeline.set(second, point);
  }

  /** Everything measured so far, from the first cycle's start to the last one's end, in `pipelock loadtest --json`'s shape. */
  result(): RunResult {
    const from = this.#from;
    const ms = from === undefined ? 0 : this.#to - from.at;
    const cpu = from === undefined ? { user: 0, system: 0 } : process.cpuUsage(from.cpu);
    const elu = from === undefined ? 0 : performance.eventLoopUtilization(from.elu).utilization;
    const seconds = ms / 1000;
    const o = this.#options;
    const one = o.entries.length === 1 ? o.entries[0]! : undefined;
    const flags: HostLine['flags'] = {
      ...o.flags, servers: [...o.servers], masters: o.servers.length, workers: 1, warmupMs: 0, durationMs: Math.round(ms), lockMs: o.lockMs,
      retryCount: o.retryCount, retryDelayMs: o.retryDelayMs, retryJitterMs: o.retryJitterMs,
      ...(one === undefined ? { mix: o.entries.map((e) => e.name) } : { operation: one.operation, kind: one.kind, keys: one.keys.count }),
    };
    const timeline: TimelinePoint[] = [...this.#timeline].sort(([a], [b]) => a - b).map(([second, p]) => ({ second, ...p, warmup: false }));
    const report = { ...this.#meter.report(0, { cpuUserMs: cpu.user / 1000, cpuSystemMs: cpu.system / 1000, elu, measuredMs: ms }),
      ...this.#parts.report() };
    const result = buildResult([report], {
      host: hostLine(this.#versions, flags, this.#startedAt), interrupted: false, measuredSeconds: seconds, timeline,
      cpu: { userMs: cpu.user / 1000, systemMs: cpu.system / 1000, seconds,
        percentOfOneCore: ms > 0 ? (100 * (cpu.user + cpu.system)) / 1000 / ms : 0 },
      ...(from === undefined ? {} : { window: { from: from.wall, to: from.wall + ms } }),
    });
    return { ...result, ...partsOf(result, [report],
      { mix: o.entries.map((e) => e.name), stages: [String(o.flags.phases ?? 'the generator\'s phases')] }, [seconds]) };
  }

  /** Cancels the waits of cycles in flight and closes the connections. */
  async close(): Promise<void> {
    this.#cancel.abort();
    await this.#redlock.quit();
  }
}
