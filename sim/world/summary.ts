import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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
  /** The run that made this row: scenarios run apart (`--scenario`) keep their own. */
  readonly run?: TallyRun;
}

/** Which run of `npm run simulate` a scenario's row is from. */
export interface TallyRun {
  readonly command: string;
  readonly pipelock: string;
  readonly date: string;
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

/**
 * Writes the tallies so far over the file's rows of the same scenarios, keeping its other rows with the run each came
 * from: a long run split by scenario (10,000 seeds of nine take hours on 2 cores) adds up to one table.
 */
export function writeSummary(path: string, command: string, jobs: number, scenarios: readonly ScenarioTally[], loadAtStart: number): void {
  const host: Host = { ...hostInfo([], command), loadavg: [loadAtStart, loadavg()[0] ?? 0] };
  const run: TallyRun = { command, pipelock: host.pipelock, date: host.date };
  const summary: SimulationSummary = { host, command, jobs, scenarios: mergeTallies(readSummary(path), scenarios.map((t) => ({ ...t, run }))) };
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(summary, null, 2)}\n`);
}

function readSummary(path: string): SimulationSummary | undefined {
  return existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) as SimulationSummary : undefined;
}

/** `earlier`'s rows in their order, each replaced by `now`'s row of its scenario, then `now`'s new scenarios. */
export function mergeTallies(earlier: SimulationSummary | undefined, now: readonly ScenarioTally[]): ScenarioTally[] {
  const fresh = new Map(now.map((t) => [t.scenario, t]));
  const before = earlier === undefined ? [] : earlier.scenarios.map((t): ScenarioTally => ({
    ...t, run: t.run ?? { command: earlier.command, pipelock: earlier.host.pipelock, date: earlier.host.date } }));
  const kept = before.map((t) => fresh.get(t.scenario) ?? t);
  return [...kept, ...now.filter((t) => !before.some((b) => b.scenario === t.scenario))];
}
