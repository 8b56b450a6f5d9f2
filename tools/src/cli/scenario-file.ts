/** `--scenario FILE`: a YAML or JSON scenario read into LoadOptions; every error names the field and its line. */
import { readFileSync } from 'node:fs';
import { LineCounter, parseDocument, type Document } from 'yaml';
import { kMaxZipfKeys } from '../load/keys.js';
import { KINDS, OPERATIONS, kMinUsingLockMs, runsUnderUsing, type LoadOptions } from '../load/options.js';
import { maxHold, type HoldDistribution, type KeyDistribution, type MixEntry, type Stage } from '../load/scenario.js';
import { int, num, parseServers, rule, time } from './args.js';
import { UsageError } from './errors.js';

type Mutable = { -readonly [K in keyof LoadOptions]: LoadOptions[K] };
type Path = readonly (string | number)[];
type Value = unknown;

/** A scalar field as text; a mapping or list where a word belongs is refused. */
function word(read: Reader, path: Path, value: Value): string {
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') read.fail(path, 'must be a word or a number');
  return String(value);
}

const kTop = ['masters', 'servers', 'workers', 'warmup', 'lockDuration', 'retryCount', 'retryDelay', 'retryJitter', 'thresholds',
  'abortOnFail', 'abortGrace', 'stages', 'mix'];
const kStage = ['duration', 'rate', 'concurrency', 'ramp'];
const kEntry = ['name', 'weight', 'operation', 'kind', 'depth', 'permits', 'keys', 'hold'];

/**
 * Reads fields of one parsed file; `fail` throws a UsageError naming the file, the line, the field and
 * the rule. Without a document (a value another tool parsed, e.g. an Artillery script) it names the
 * field path alone, under `flag`.
 */
class Reader {
  readonly #file: string;
  readonly #doc: Document | undefined;
  readonly #lines: LineCounter | undefined;
  readonly #flag: string;

  constructor(file: string, doc: Document | undefined, lines: LineCounter | undefined, flag = '--scenario') {
    this.#file = file;
    this.#doc = doc;
    this.#lines = lines;
    this.#flag = flag;
  }

  fail(path: Path, why: string): never {
    const name = path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
    const field = `${name === '' ? 'the file' : name} ${why}`;
    if (this.#doc === undefined) throw new UsageError(this.#flag, this.#file === '' ? field : `${this.#file}: ${field}`);
    const node = this.#doc.getIn(path, true) as { range?: [number, number, number] } | undefined;
    const at = node?.range === undefined ? path.length > 1 ? this.#line(path.slice(0, -1)) : 1 : this.#lines!.linePos(node.range[0]).line;
    throw new UsageError(this.#flag, `${this.#file}:${at}: ${field}`);
  }

  #line(path: Path): number {
    const node = this.#doc?.getIn(path, true) as { range?: [number, number, number] } | undefined;
    return node?.range === undefined ? 1 : this.#lines!.linePos(node.range[0]).line;
  }

  /** Converts with a flag parser (time, int, …), its rule reported at the field. */
  as<T>(path: Path, value: Value, parse: (flag: string, text: string) => T): T {
    try {
      return parse('', String(value));
    } catch (error) {
      if (error instanceof UsageError) this.fail(path, error.rule);
      throw error;
    }
  }

  object(path: Path, value: Value, known: readonly string[]): Record<string, Value> {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) this.fail(path, 'must be a mapping (key: value)');
    for (const key of Object.keys(value)) if (!known.includes(key))
      this.fail([...path, key], `is not a field here (one of ${known.join(', ')})`);
    return value as Record<string, Value>;
  }

  list(path: Path, value: Value): Value[] {
    if (!Array.isArray(value) || value.length === 0) this.fail(path, 'must be a non-empty list');
    return value;
  }
}

/** Parses FILE (YAML; JSON is YAML too) and applies it to `into`; throws UsageError('--scenario', 'FILE:LINE: field rule'). */
export function applyScenario(file: string, into: Mutable): void {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError('--scenario', `cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const error = doc.errors[0];
  if (error !== undefined) throw new UsageError('--scenario',
    `${file}:${lines.linePos(error.pos[0]).line}: is not valid YAML or JSON (${error.message.split('\n')[0]!})`);
  const read = new Reader(file, doc, lines);
  const top = read.object([], doc.toJS() as Value, kTop);
  applyTop(read, top, into);
  const stages = read.list(['stages'], top.stages).map((s, i) => stage(read, ['stages', i], s));
  const open = stages[0]!.open;
  stages.forEach((s, i) => {
    if (s.open !== open)
      read.fail(['stages', i],
        `sets ${s.open ? 'rate' : 'concurrency'} where stage 0 sets ${open ? 'rate' : 'concurrency'}: a run is an open or a closed `
          + `loop throughout`);
  });
  const peak = Math.max(...stages.map((s) => s.target));
  if (peak <= 0) read.fail(['stages'], 'must have a stage with a target above 0');
  into.stages = stages.map(({ open: _, ...s }) => s);
  into.durationMs = stages.reduce((n, s) => n + s.durationMs, 0);
  into.rate = open ? peak : 0;
  if (!open) into.concurrency = peak;
  const mix =
    top.mix === undefined ? [defaultEntry(into)] : read.list(['mix'], top.mix).map((e, i) => entry(read, ['mix', i], e, into.lockMs));
  const names = mix.map((e) => e.name);
  names.forEach((name, i) => {
    if (names.indexOf(name) !== i)
      read.fail(['mix', i, 'name'], `repeats ${JSON.stringify(name)}: each entry's results are shown under its name`);
  });
  into.mix = mix;
  into.scenario = file;
  if (mix.length === 1) Object.assign(into, { operation: mix[0]!.operation, kind: mix[0]!.kind, keys: mix[0]!.keys.count });
}

/**
 * One mix entry from a value another tool already parsed (a step of an Artillery script): the same
 * fields, defaults and rules as a scenario file's `mix` entry; errors are UsageErrors under `flag`
 * naming `path` (e.g. scenarios[0].flow[1].cycle.keys.share).
 */
export function readEntry(flag: string, path: Path, value: unknown, lockMs: number): MixEntry {
  return entry(new Reader('', undefined, undefined, flag), path, value, lockMs);
}

function applyTop(read: Reader, top: Record<string, Value>, into: Mutable): void {
  const at = (key: string): Path => [key];
  if (top.masters !== undefined) into.masters = read.as(at('masters'), top.masters, (f, v) => int(f, v, 1, 64));
  if (top.servers !== undefined) into.servers =
    read.as(at('servers'), Array.isArray(top.servers) ? top.servers.join(',') : top.servers, (_, v) => parseServers(v, true));
  if (top.workers !== undefined) into.workers = read.as(at('workers'), top.workers, (f, v) => int(f, v, 1, 256));
  if (top.warmup !== undefined) into.warmupMs = read.as(at('warmup'), top.warmup, (f, v) => time(f, v, 's', 0));
  if (top.lockDuration !== undefined) into.lockMs = read.as(at('lockDuration'), top.lockDuration, (f, v) => time(f, v, 'ms', 1));
  if (top.retryCount !== undefined) into.retryCount = read.as(at('retryCount'), top.retryCount, (f, v) => int(f, v, -1, 1e6));
  if (top.retryDelay !== undefined) into.retryDelayMs = read.as(at('retryDelay'), top.retryDelay, (f, v) => time(f, v, 'ms', 0));
  if (top.retryJitter !== undefined) into.retryJitterMs = read.as(at('retryJitter'), top.retryJitter, (f, v) => time(f, v, 'ms', 0));
  if (top.thresholds !== undefined)
    into.thresholds = read.list(at('thresholds'), top.thresholds).map((t, i) => read.as(['thresholds', i], t, (f, v) => rule(f, v)));
  if (top.abortOnFail !== undefined) {
    if (typeof top.abortOnFail !== 'boolean') read.fail(at('abortOnFail'), 'must be true or false');
    into.abortOnFail = top.abortOnFail;
  }
  if (top.abortGrace !== undefined) into.abortGraceMs = read.as(at('abortGrace'), top.abortGrace, (f, v) => time(f, v, 's', 0));
}

function stage(read: Reader, path: Path, value: Value): Stage & { open: boolean } {
  const s = read.object(path, value, kStage);
  if (s.duration === undefined) read.fail([...path, 'duration'], 'is missing: every stage has a duration (e.g. 10s)');
  const durationMs = read.as([...path, 'duration'], s.duration, (f, v) => time(f, v, 's', 1));
  if ((s.rate === undefined) === (s.concurrency === undefined))
    read.fail(path, 'must set one of rate (cycles/s over all workers) and concurrency (in flight per worker)');
  if (s.ramp !== undefined && typeof s.ramp !== 'boolean') read.fail([...path, 'ramp'], 'must be true or false');
  const open = s.rate !== undefined;
  const target = open
    ? read.as([...path, 'rate'], s.rate, (_, v) => (v.trim() === '0' ? 0 : num('', v, 1e6)))
    : read.as([...path, 'concurrency'], s.concurrency, (f, v) => int(f, v, 0, 100_000));
  return { durationMs, target, ramp: s.ramp === true, open };
}

function defaultEntry(o: LoadOptions): MixEntry {
  return { name: o.operation, weight: 1, operation: o.operation, kind: o.kind === 'election' ? 'mutex' : o.kind,
    depth: o.depth, permits: o.permits,
    keys: { distribution: 'uniform', count: o.keys }, hold: { distribution: 'fixed', ms: o.holdMs } };
}

function entry(read: Reader, path: Path, value: Value, lockMs: number): MixEntry {
  const e = read.object(path, value, kEntry);
  const field = (key: string): Path => [...path, key];
  const name = e.name === undefined ? `entry ${String(path[1])}` : word(read, field('name'), e.name);
  const weight = e.weight === undefined ? 1 : read.as(field('weight'), e.weight, (f, v) => num(f, v, 1e9));
  const operation = e.operation === undefined ? 'acquire-release' : word(read, field('operation'), e.operation);
  if (!(OPERATIONS as readonly string[]).includes(operation) || operation === 'renew-hold') {
    read.fail(field('operation'),
      `must be one of ${OPERATIONS.filter((o) => o !== 'renew-hold').join(', ')} (renew-hold runs alone, from the flags: its locks are `
        + `held for the whole run)`);
  }
  const kind = e.kind === undefined ? 'mutex' : word(read, field('kind'), e.kind);
  if (!(KINDS as readonly string[]).includes(kind) || kind === 'election')
    read.fail(field('kind'), `must be one of ${KINDS.filter((k) => k !== 'election').join(', ')}`);
  if (kind === 'reentrant' && operation !== 'acquire-release') read.fail(field('kind'), 'reentrant runs acquire-release cycles only');
  if (e.depth !== undefined && kind !== 'reentrant') read.fail(field('depth'), 'needs kind reentrant');
  if (e.permits !== undefined && kind !== 'semaphore') read.fail(field('permits'), 'needs kind semaphore');
  const depth = e.depth === undefined ? 2 : read.as(field('depth'), e.depth, (f, v) => int(f, v, 1, 1000));
  const permits = e.permits === undefined ? 8 : read.as(field('permits'), e.permits, (f, v) => int(f, v, 1, 1024));
  const keys = keysOf(read, field('keys'), e.keys);
  const hold = holdOf(read, field('hold'), e.hold, lockMs);
  const op = operation as MixEntry['operation'];
  if (runsUnderUsing(op) && lockMs < kMinUsingLockMs)
    read.fail(field('operation'), `using needs lockDuration of at least ${kMinUsingLockMs}ms`);
  if (!runsUnderUsing(op) && maxHold(hold) >= lockMs)
    read.fail(field('hold'), `must stay shorter than lockDuration (${lockMs}ms): the lock would expire while held`);
  return { name, weight, operation: op, kind: kind as MixEntry['kind'], depth, permits, keys, hold };
}

function keysOf(read: Reader, path: Path, value: Value): KeyDistribution {
  if (value === undefined) return { distribution: 'uniform', count: 10_000 };
  if (typeof value === 'number' || typeof value === 'string')
    return { distribution: 'uniform', count: read.as(path, value, (f, v) => int(f, v, 1, 1e9)) };
  const k = read.object(path, value, ['distribution', 'count', 'exponent', 'hot', 'share']);
  const count = k.count === undefined ? read.fail([...path, 'count'], 'is missing: how many keys')
    : read.as([...path, 'count'], k.count, (f, v) => int(f, v, 1, 1e9));
  const distribution = k.distribution === undefined ? 'uniform' : word(read, [...path, 'distribution'], k.distribution);
  const only = (allowed: string[]): void => {
    for (const key of ['exponent', 'hot', 'share']) if (k[key] !== undefined && !allowed.includes(key))
      read.fail([...path, key], `is not a field of the ${distribution} distribution`);
  };
  switch (distribution) {
    case 'uniform':
      only([]);
      return { distribution: 'uniform', count };
    case 'zipf': {
      only(['exponent']);
      if (count > kMaxZipfKeys)
        read.fail([...path, 'count'], `must be at most ${kMaxZipfKeys} with zipf (its table is built in every worker)`);
      const exponent = k.exponent === undefined ? 1 : read.as([...path, 'exponent'], k.exponent, (f, v) => num(f, v, 10));
      return { distribution: 'zipf', count, exponent };
    }
    case 'hot': {
      only(['hot', 'share']);
      const hot = read.as([...path, 'hot'], k.hot ?? 'missing', (f, v) => int(f, v, 1, count));
      const share = read.as([...path, 'share'], k.share ?? 'missing', (_, v) => percent(v));
      return { distribution: 'hot', count, hot, share };
    }
    default:
      return read.fail([...path, 'distribution'], 'must be uniform, zipf or hot');
  }
}

/** `80%` or `0.8`: a share from 0 to 1. */
function percent(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(%)?$/.exec(text.trim());
  const share = match === null ? NaN : Number(match[1]) / (match[2] === undefined ? 1 : 100);
  if (!(share >= 0 && share <= 1)) throw new UsageError('', 'must be a share: 80% or 0.8');
  return share;
}

function holdOf(read: Reader, path: Path, value: Value, lockMs: number): HoldDistribution {
  const ms = (p: Path, v: Value): number => read.as(p, v, (f, t) => time(f, t, 'ms', 0));
  if (value === undefined) return { distribution: 'fixed', ms: 0 };
  if (typeof value === 'number' || typeof value === 'string') return { distribution: 'fixed', ms: ms(path, value) };
  const h = read.object(path, value, ['distribution', 'ms', 'min', 'max', 'mean']);
  const need = (key: string): Value => h[key] ?? read.fail([...path, key], `is missing for the ${String(h.distribution)} distribution`);
  switch (h.distribution ?? 'fixed') {
    case 'fixed':
      return { distribution: 'fixed', ms: ms([...path, 'ms'], need('ms')) };
    case 'uniform': {
      const min = ms([...path, 'min'], need('min'));
      const max = ms([...path, 'max'], need('max'));
      if (max < min) read.fail([...path, 'max'], `must not be below min (${min}ms)`);
      return { distribution: 'uniform', min, max };
    }
    case 'exponential':
      // Cut at half the lock by default: a draw far out in the tail must not outlive its lock.
      return { distribution: 'exponential', mean: ms([...path, 'mean'], need('mean')),
        max: h.max === undefined ? Math.floor(lockMs / 2) : ms([...path, 'max'], h.max) };
    default:
      return read.fail([...path, 'distribution'], 'must be fixed, uniform or exponential');
  }
}

/** Flags that a scenario file sets; given with --scenario, they would be silently ignored or fight it. */
export const kScenarioSets = ['concurrency', 'rate', 'duration', 'keys', 'hold', 'operation', 'kind', 'depth', 'permits'];

