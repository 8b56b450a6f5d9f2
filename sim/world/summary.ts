import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { hostInfo, ROOT, type Host } from '../../bench/lib/host.js';

/** One scenario's seeds in a run of `npm run simulate`. */
export interface ScenarioTally {
  readonly scenario: string;
  readonly first: number;
  readonly seeds: number;
  /** Runs that broke a property within Redlock's assumptions (bugs). */
  readonly violating: number;
  readonly violatingSeeds: readonly number[];
  /** Runs given faults outside the assumptions (restarts at once, master clock jumps). */
  readonly unsafeRuns: number;
  /** Runs that broke a property only where expected (those faults, or a holder acting right after a pause). */
  readonly expectedRuns: number;
  /** Wall seconds for the scenario's seeds, across every job. */
  readonly seconds: number;
  /** A hash of every seed's history hash in seed order: the same for the same seeds, whatever `--jobs`. */
  readonly digest: string;
}

/** What bench/results/simulate.json holds: RELIABILITY.md's simulation section is made from it. */
export interface SimulationSummary {
  readonly host: Host;
  readonly command: string;
  /** Worker threads the seeds ran on (`--jobs`). */
  readonly jobs: number;
  readonly scenarios: readonly ScenarioTally[];
}

export const SIMULATE_JSON = join(ROOT, 'bench', 'results', 'simulate.json');

/** Writes the tallies so far; `loadAtStart` with the load now shows how busy the machine was. */
export function writeSummary(path: string, command: string, jobs: number, scenarios: readonly ScenarioTally[], loadAtStart: number): void {
  const host: Host = { ...hostInfo([], command), loadavg: [loadAtStart, loadavg()[0] ?? 0] };
  const summary: SimulationSummary = { host, command, jobs, scenarios };
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(summary, null, 2)}\n`);
}
