/**
 * An Artillery engine (https://www.artillery.io/docs/reference/engines) whose virtual users run
 * pipelock lock cycles: Artillery's phases, arrival rates, weights and `ensure` thresholds drive them;
 * each cycle is measured as `pipelock loadtest` measures its own, reported as Artillery counters and
 * histograms, and each worker writes its exact HDR histograms for `pipelock report merge`.
 */
import type { EventEmitter } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Driver, errorCode } from 'pipelock-tools/driver';
import { readConfig, type EngineConfig, type Script, type Step } from './config.js';

/** A virtual user's context as Artillery hands it over and wants it back. */
export type Context = Record<string, unknown>;
export type Done = (error: Error | null, context: Context) => void;

/** The events a scenario emits to Artillery: metrics and the virtual user's start. */
interface Events {
  emit(event: 'started'): boolean;
  emit(event: 'counter' | 'histogram', name: string, value: number): boolean;
  /** rate: a metric's name; error: the failure's code (Artillery counts errors.CODE). */
  emit(event: 'rate' | 'error', nameOrCode: string): boolean;
}

/** Artillery's global, present under `artillery run`: its test run id is the same in every worker. */
declare const artillery: { readonly testRunId?: unknown } | undefined;

export class PipelockEngine {
  readonly #config: EngineConfig;
  readonly #scenarios: readonly unknown[];
  #driver: Driver | undefined;
  #written = false;

  /** Artillery's engine interface: the whole script, the runner's events, and its helpers (not needed here). */
  constructor(script: Script, ee: EventEmitter, _helpers?: unknown) {
    const runId = typeof artillery === 'object' && typeof artillery.testRunId === 'string' ? artillery.testRunId : 'run';
    this.#config = readConfig(script, runId);
    this.#scenarios = script.scenarios ?? [];
    // The runner's 'done' comes once every virtual user has ended; the worker may exit right after, so the file is written at once.
    ee.on('done', () => {
      this.#finish();
    });
  }

  /** Called (and awaited) by Artillery's runner before the first virtual user: connects to the masters. */
  async init(): Promise<void> {
    const c = this.#config;
    this.#driver = await Driver.open({
      servers: c.servers, entries: c.entries, lockMs: c.lockMs, retryCount: c.retryCount, retryDelayMs: c.retryDelayMs, retryJitterMs: c.retryJitterMs,
      prefix: c.prefix, flags: { generator: 'artillery-engine-pipelock', phases: 'Artillery phases' },
    });
  }

  /** One scenario's virtual user: runs its flow's steps in order; a failed cycle fails the user, as a failed request does in Artillery's http engine. */
  createScenario(spec: { readonly name?: unknown }, events: Events): (context: Context, done: Done) => void {
    // Artillery hands over the scenario object of the script it gave the constructor.
    const index = this.#scenarios.indexOf(spec);
    const steps = this.#config.flows.get(index);
    if (steps === undefined) throw new Error('artillery-engine-pipelock: createScenario was given a scenario that is not one of the script\'s scenarios with engine: pipelock (before/after hooks are not supported)');
    return (context, done) => {
      events.emit('started');
      this.#run(steps, events).then(() => {
        done(null, context);
      }, (error: unknown) => {
        done(error instanceof Error ? error : new Error(String(error)), context);
      });
    };
  }

  async #run(steps: readonly Step[], events: Events): Promise<void> {
    for (const step of steps) {
      if (step.kind === 'think') await delay(step.ms);
      else if (step.kind === 'loop') for (let i = 0; i < step.count; i++) await this.#run(step.steps, events);
      else await this.#cycle(step.entry, events);
    }
  }

  async #cycle(entry: number, events: Events): Promise<void> {
    const driver = this.#driver;
    if (driver === undefined) throw new Error('artillery-engine-pipelock: a virtual user started before init() connected (is this Artillery 2?)');
    let figures;
    try {
      figures = await driver.cycle(entry);
    } catch (error) {
      events.emit('error', errorCode(error));
      throw error;
    }
    events.emit('counter', 'pipelock.cycles', 1);
    events.emit('rate', 'pipelock.cycle_rate');
    events.emit('histogram', 'pipelock.acquire', figures.acquireMs);
    if (figures.extendMs >= 0) events.emit('histogram', 'pipelock.extend', figures.extendMs);
    events.emit('histogram', 'pipelock.release', figures.releaseMs);
    events.emit('histogram', 'pipelock.cycle', figures.cycleMs);
  }

  #finish(): void {
    const driver = this.#driver;
    if (driver === undefined || this.#written) return;
    this.#written = true;
    const file = this.#config.json;
    if (file !== undefined) {
      // Thrown here it would surface inside the runner's 'done' event; said instead, and the worker exits 1.
      try {
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, `${JSON.stringify(driver.result(), null, 2)}\n`);
      } catch (error) {
        console.error(`artillery-engine-pipelock: could not write the result file (config.engines.pipelock.json) ${file}: `
          + (error instanceof Error ? error.message : String(error)));
        process.exitCode = 1;
      }
    }
    driver.close().catch((error: unknown) => {
      console.error(`artillery-engine-pipelock: closing the connections failed: ${error instanceof Error ? error.message : String(error)}`);
    });
  }
}
