/** The engine's settings (`config.engines.pipelock`) and its scenarios' steps, read once and checked with errors that name the field. */
import { hostname } from 'node:os';
import { threadId } from 'node:worker_threads';
import { defaultSettings } from 'pipelock';
import { int, parseServers, readEntry, time, UsageError, type MixEntry } from 'pipelock-tools/driver';

/** The settings or a scenario break a rule: names the field (`config.engines.pipelock.lockDuration`) and the rule. */
export class EngineConfigError extends Error {
  override readonly name = 'EngineConfigError';
  readonly code = 'ERR_PIPELOCK_ARTILLERY_CONFIG';
  readonly field: string;

  constructor(field: string, rule: string, options?: ErrorOptions) {
    super(`artillery-engine-pipelock: ${field} ${rule}`, options);
    this.field = field;
  }
}

/** A step of a scenario's flow: one pipelock cycle (an entry of the driver's mix), a pause, or a loop. */
export type Step =
  | { readonly kind: 'cycle'; readonly entry: number }
  | { readonly kind: 'think'; readonly ms: number }
  | { readonly kind: 'loop'; readonly count: number; readonly steps: readonly Step[] };

export interface EngineConfig {
  readonly servers: readonly string[];
  readonly lockMs: number;
  readonly retryCount: number;
  readonly retryDelayMs: number;
  readonly retryJitterMs: number;
  /** Every key starts with it; the same in every worker of a run, so that workers contend for the same keys. */
  readonly prefix: string;
  /** Where this worker writes its result (`{worker}` replaced), or undefined for none. */
  readonly json: string | undefined;
  /** One per `cycle` step of the engine's scenarios, named after the scenario (and the step when it has several). */
  readonly entries: readonly MixEntry[];
  /** Each scenario's flow, by its index in `scenarios`; scenarios of other engines are absent. */
  readonly flows: ReadonlyMap<number, readonly Step[]>;
}

/** What the engine reads of an Artillery script. */
export interface Script {
  readonly config?: { readonly target?: unknown; readonly engines?: Readonly<Record<string, unknown>>; readonly engine?: unknown; readonly phases?: unknown };
  readonly scenarios?: readonly unknown[];
}

const kEngine = 'pipelock';
const kOptions = ['servers', 'lockDuration', 'retryCount', 'retryDelay', 'retryJitter', 'prefix', 'json'];
const kWorker = '{worker}';

type Rec = Readonly<Record<string, unknown>>;
const isRecord = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A flag parser's UsageError as an EngineConfigError at `field`. */
function as<T>(field: string, value: unknown, parse: (flag: string, text: string) => T): T {
  try {
    return parse(field, typeof value === 'string' || typeof value === 'number' ? String(value) : JSON.stringify(value));
  } catch (error) {
    if (error instanceof UsageError) throw new EngineConfigError(field, error.rule, { cause: error });
    throw error;
  }
}

/** Reads `config.engines.pipelock` and every scenario whose engine is pipelock. */
export function readConfig(script: Script, runId: string): EngineConfig {
  const at = 'config.engines.pipelock';
  const options = script.config?.engines?.[kEngine] ?? {};
  if (!isRecord(options)) throw new EngineConfigError(at, 'must be a mapping of settings (it may be empty: {})');
  for (const key of Object.keys(options)) if (!kOptions.includes(key)) throw new EngineConfigError(`${at}.${key}`, `is not a setting (one of ${kOptions.join(', ')})`);
  const given = options.servers ?? script.config?.target;
  if (given === undefined) throw new EngineConfigError(`${at}.servers`, 'is missing: list the masters (or give them as config.target, comma-separated redis:// URLs)');
  const servers = as(options.servers === undefined ? 'config.target' : `${at}.servers`, Array.isArray(given) ? given.join(',') : given, (_, v) => parseServers(v, true));
  const lockMs = options.lockDuration === undefined ? 5_000 : as(`${at}.lockDuration`, options.lockDuration, (f, v) => time(f, v, 'ms', 1));
  const retryCount = options.retryCount === undefined ? defaultSettings.retryCount : as(`${at}.retryCount`, options.retryCount, (f, v) => int(f, v, -1, 1e6));
  const retryDelayMs = options.retryDelay === undefined ? defaultSettings.retryDelay : as(`${at}.retryDelay`, options.retryDelay, (f, v) => time(f, v, 'ms', 0));
  const retryJitterMs = options.retryJitter === undefined ? defaultSettings.retryJitter : as(`${at}.retryJitter`, options.retryJitter, (f, v) => time(f, v, 'ms', 0));
  if (options.prefix !== undefined && (typeof options.prefix !== 'string' || options.prefix === '')) throw new EngineConfigError(`${at}.prefix`, 'must be a non-empty string');
  const prefix = typeof options.prefix === 'string' ? options.prefix : `pipelock-artillery:${runId}:`;
  let json: string | undefined;
  if (options.json !== undefined) {
    // Several workers write at once (threads of one process, or machines): one file each, or they overwrite one another.
    if (typeof options.json !== 'string' || !options.json.includes(kWorker)) throw new EngineConfigError(`${at}.json`, `must be a file path containing ${kWorker} (each worker writes its own file)`);
    json = options.json.replaceAll(kWorker, `${hostname()}-${process.pid}-${threadId}`);
  }
  const entries: MixEntry[] = [];
  const flows = new Map<number, readonly Step[]>();
  const defaultEngine = script.config?.engine;
  (script.scenarios ?? []).forEach((scenario, i) => {
    if (!isRecord(scenario) || (scenario.engine ?? defaultEngine) !== kEngine) return;
    const name = typeof scenario.name === 'string' && scenario.name !== '' ? scenario.name : `scenario ${i}`;
    const path = `scenarios[${i}].flow`;
    if (!Array.isArray(scenario.flow) || scenario.flow.length === 0) throw new EngineConfigError(path, 'must be a non-empty list of steps (cycle, think, loop)');
    const before = entries.length;
    const steps = scenario.flow.map((s, k) => step(s, `${path}[${k}]`, name, lockMs, entries));
    // A scenario of several cycle steps shows each under its own name (the scenario's, numbered, unless the step names it).
    if (entries.length - before > 1) for (let e = before; e < entries.length; e++) if (entries[e]!.name === name) entries[e] = { ...entries[e]!, name: `${name} #${e - before + 1}` };
    flows.set(i, steps);
  });
  entries.forEach((e, i) => {
    // Results are shown per entry under its name: two alike would read as one.
    if (entries.findIndex((o) => o.name === e.name) !== i) throw new EngineConfigError('scenarios', `name two cycles ${JSON.stringify(e.name)}: give each scenario (or cycle step) its own name`);
  });
  if (entries.length === 0) throw new EngineConfigError('scenarios', `have no cycle step under engine: ${kEngine}`);
  return { servers, lockMs, retryCount, retryDelayMs, retryJitterMs, prefix, json, entries, flows };
}

function step(value: unknown, path: string, name: string, lockMs: number, entries: MixEntry[]): Step {
  if (!isRecord(value) || Object.keys(value).length === 0) throw new EngineConfigError(path, 'must be a step: { cycle: {…} }, { think: SECONDS } or { loop: [steps], count: N }');
  const known = ['cycle', 'think', 'loop', 'count'];
  for (const key of Object.keys(value)) if (!known.includes(key)) throw new EngineConfigError(`${path}.${key}`, `is not a step of this engine (one of cycle, think, loop)`);
  if (value.cycle !== undefined) {
    let entry: MixEntry;
    try {
      entry = readEntry(path, ['cycle'], isRecord(value.cycle) ? { name, ...value.cycle } : value.cycle === null ? { name } : value.cycle, lockMs);
    } catch (error) {
      // The rule reads "cycle.keys.share must be …": the field path, then the rule.
      if (!(error instanceof UsageError)) throw error;
      const space = error.rule.indexOf(' ');
      throw new EngineConfigError(`${path}.${error.rule.slice(0, space)}`, error.rule.slice(space + 1), { cause: error });
    }
    entries.push(entry);
    return { kind: 'cycle', entry: entries.length - 1 };
  }
  if (value.think !== undefined) return { kind: 'think', ms: as(`${path}.think`, value.think, (f, v) => time(f, v, 's', 0)) };
  if (!Array.isArray(value.loop) || value.loop.length === 0) throw new EngineConfigError(`${path}.loop`, 'must be a non-empty list of steps');
  const count = value.count === undefined ? undefined : as(`${path}.count`, value.count, (f, v) => int(f, v, 1, 1e9));
  if (count === undefined) throw new EngineConfigError(`${path}.count`, 'is missing: a loop runs count times (an endless loop would outlive the phases)');
  return { kind: 'loop', count, steps: value.loop.map((s, k) => step(s, `${path}.loop[${k}]`, name, lockMs, entries)) };
}
