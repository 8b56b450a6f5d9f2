/**
 * A minimal Artillery runner: what Artillery's runner (lib/core/runner.ts in 2.0.34) does with an
 * engine, keeping every sample the engine emitted, which the real Artillery's report
 * (test/helpers/artillery.ts) sketches and rounds. Like it, it loads 'artillery-engine-' + name for
 * each name in config.engines (Artillery: require.resolve, then import()), constructs it with
 * (script, ee, helpers), awaits init() when it is an async function, compiles each scenario with
 * createScenario(spec, events) at the first arrival, counts virtual users on 'started', turns the
 * events counter/histogram/rate/error into metrics (errors as errors.CODE), and emits 'done' on the
 * runner's ee once every phase has launched its arrivals and no virtual user is pending.
 */
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { setTimeout as delay } from 'node:timers/promises';

export interface ArtilleryScript {
  readonly config: { readonly target?: string; readonly phases: readonly { readonly duration: number; readonly arrivalRate: number }[]; readonly engines: Readonly<Record<string, unknown>> };
  readonly scenarios: readonly { readonly name?: string; readonly engine?: string; readonly weight?: number; readonly flow: readonly unknown[] }[];
}

/** What a run emitted: counters summed, every histogram value as emitted, and the virtual users. */
export interface Emitted {
  counters: Record<string, number>;
  histograms: Record<string, number[]>;
  rates: Record<string, number>;
}

type VirtualUser = (context: Record<string, unknown>, done: (error: Error | null, context: unknown) => void) => void;
interface Engine {
  init?: () => Promise<void>;
  createScenario: (spec: unknown, events: EventEmitter) => VirtualUser;
  __name?: string;
}

/** `go`: awaited once the engines are ready, before the first arrival (Artillery's launcher starts its workers together once each says readyWaiting). */
export async function runArtillery(script: ArtilleryScript, go: () => Promise<void> = () => Promise.resolve()): Promise<Emitted> {
  const require = createRequire(import.meta.url);
  const ee = new EventEmitter();
  const engines = Object.keys(script.config.engines).map((name) => {
    const Engine = require(`artillery-engine-${name}`) as new (script: unknown, ee: EventEmitter, helpers: unknown) => Engine;
    const engine = new Engine(script, ee, {});
    engine.__name = name;
    return engine;
  });
  for (const engine of engines) if (typeof engine.init === 'function' && engine.init.constructor.name === 'AsyncFunction') await engine.init();
  await go();

  const emitted: Emitted = { counters: {}, histograms: {}, rates: {} };
  const counter = (name: string, value: number): void => {
    emitted.counters[name] = (emitted.counters[name] ?? 0) + value;
  };
  const events = new EventEmitter();
  let pending = 0;
  events.on('counter', counter);
  events.on('histogram', (name: string, value: number) => {
    (emitted.histograms[name] ??= []).push(value);
  });
  events.on('rate', (name: string) => (emitted.rates[name] = (emitted.rates[name] ?? 0) + 1));
  events.on('started', () => pending++);
  events.on('error', (code: string) => {
    counter(`errors.${code}`, 1);
  });

  let compiled: VirtualUser[] | undefined;
  const weights = script.scenarios.map((s) => s.weight ?? 1);
  const total = weights.reduce((a, b) => a + b, 0);
  const pick = (): number => {
    let u = Math.random() * total;
    for (const [i, w] of weights.entries()) if ((u -= w) < 0) return i;
    return weights.length - 1;
  };
  const arrive = (): void => {
    compiled ??= script.scenarios.map((spec) => {
      const engine = engines.find((e) => e.__name === spec.engine);
      if (engine === undefined) throw new Error(`unknown engine ${String(spec.engine)}`);
      return engine.createScenario(spec, events);
    });
    const i = pick();
    counter(`vusers.created_by_name.${script.scenarios[i]!.name ?? i}`, 1);
    counter('vusers.created', 1);
    compiled[i]!({ vars: {} }, (error) => {
      pending--;
      counter(error === null ? 'vusers.completed' : 'vusers.failed', 1);
    });
  };
  for (const phase of script.config.phases) {
    // Arrivals evenly spaced at the phase's rate, each on the schedule from the phase's start (no drift).
    const start = performance.now();
    const count = Math.round(phase.duration * phase.arrivalRate);
    for (let i = 0; i < count; i++) {
      const wait = start + (i * 1000) / phase.arrivalRate - performance.now();
      if (wait > 0) await delay(wait);
      arrive();
    }
  }
  while (pending > 0) await delay(20);
  const done = new Promise<void>((resolve) => {
    ee.once('done', () => {
      resolve();
    });
  });
  ee.emit('done', {});
  await done;
  return emitted;
}
