import { parseArgs } from 'node:util';
import { KINDS, kLoadDefaults, kMinLeaseMs, kMinUsingLockMs, OPERATIONS, runsUnderUsing, type LoadOptions } from '../load/options.js';
import { kLateStartMs, kOpenInFlight } from '../load/loops.js';
import { negativeValues, checkRepeats, fromParseArgs, int, num, oneOf, parseServers, path, rule, startAt, time } from './args.js';
import { UsageError } from './errors.js';
import { applyScenario, kScenarioSets } from './scenario-file.js';

export { checkRepeats, fromParseArgs, int, parseServers, path, time } from './args.js';

const d = kLoadDefaults;
/** --sweep's parts when only some are given. */
const kSweep = { step: 'x1.5', steps: 8, confirm: 2 };

/** One flag: how parseArgs reads it, what --help says, and how its value is checked (once). */
interface Flag {
  readonly arg?: string;
  /** A switch takes no value (apply gets 'true'); a repeatable flag's apply runs once per value. */
  readonly switch?: true;
  readonly repeatable?: true;
  readonly help: string;
  readonly apply: (value: string, into: Mutable) => void;
}

type Mutable = { -readonly [K in keyof LoadOptions]: LoadOptions[K] };

const FLAGS: Readonly<Record<string, Flag>> = {
  // First: the flags after it (--servers, --workers, --json, --threshold, …) apply over the file's values.
  scenario: {
    arg: 'FILE',
    help: 'a scenario file (YAML or JSON, docs/load-testing.md): stages of rate or concurrency with ramps, a weighted\n' +
      'mix of operations and kinds, key and hold-time distributions, thresholds. It replaces --rate, --concurrency,\n' +
      '--duration, --keys, --hold, --operation, --kind, --depth and --permits; --threshold adds to its thresholds',
    apply: (v, o) => {
      applyScenario(path('--scenario', v), o);
    },
  },
  servers: {
    arg: 'URLS',
    help: 'comma-separated redis:// or rediss:// URLs of existing independent masters (TLS and user:password@ honoured);\n' +
      'redis+cluster://host:port (or rediss+cluster://) names a whole Redis Cluster as one member, found from that seed node\n' +
      '(a cluster node given as redis:// is refused before the run, exit 1);\n' +
      'only keys under a per-run prefix are written, and removed at the end. Default: start embedded local masters',
    apply: (v, o) => (o.servers = parseServers(v, true)),
  },
  masters: { arg: 'N', help: `embedded masters to start when no --servers (default ${d.masters})`,
    apply: (v, o) => (o.masters = int('--masters', v, 1, 64)) },
  workers: {
    arg: 'W',
    help: `worker threads, each with its own Redlock and connections (default: available parallelism, ${d.workers} here)`,
    apply: (v, o) => (o.workers = int('--workers', v, 1, 256)),
  },
  concurrency: {
    arg: 'C',
    help: `closed loop: cycles in flight per worker; renew-hold: locks held per worker (default ${d.concurrency})`,
    apply: (v, o) => (o.concurrency = int('--concurrency', v, 1, 100_000)),
  },
  rate: {
    arg: 'R',
    help: 'open loop: target cycles/s over all workers, each timed from its intended start (no coordinated omission).\n' +
      `At most ${kOpenInFlight} (+ rate × hold) in flight per worker: past that, due cycles wait their turn and their wait\n` +
      'counts in their latency; those due in the window and not completed by its end are reported as late. Default: closed loop',
    apply: (v, o) => (o.rate = num('--rate', v, 1e6)),
  },
  duration: { arg: 'TIME', help: `measured time: 10, 10s, 1500ms, 2m; a bare number is seconds (default ${d.durationMs / 1000}s)`,
    apply: (v, o) => (o.durationMs = time('--duration', v, 's', 1)) },
  warmup: { arg: 'TIME', help: `time before measuring starts, not counted; a bare number is seconds (default ${d.warmupMs / 1000}s)`,
    apply: (v, o) => (o.warmupMs = time('--warmup', v, 's', 0)) },
  keys: { arg: 'K', help: `key space: 1 = one hot key … 1000000 = uncontended (default ${d.keys})`,
    apply: (v, o) => (o.keys = int('--keys', v, 1, 1e9)) },
  hold: { arg: 'TIME', help: `time held inside the lock each cycle; a bare number is ms (default ${d.holdMs}ms)`,
    apply: (v, o) => (o.holdMs = time('--hold', v, 'ms', 0)) },
  'lock-duration': { arg: 'TIME', help: `the lock's duration (TTL); a bare number is ms (default ${d.lockMs}ms)`,
    apply: (v, o) => (o.lockMs = time('--lock-duration', v, 'ms', 1)) },
  'retry-count': { arg: 'N', help: `retries after a lost attempt; -1 until the run ends (default ${d.retryCount})`,
    apply: (v, o) => (o.retryCount = int('--retry-count', v, -1, 1e6)) },
  'retry-delay': { arg: 'TIME', help: `wait between attempts; a bare number is ms (default ${d.retryDelayMs}ms)`,
    apply: (v, o) => (o.retryDelayMs = time('--retry-delay', v, 'ms', 0)) },
  'retry-jitter': { arg: 'TIME', help: `random ± on each wait; a bare number is ms (default ${d.retryJitterMs}ms)`,
    apply: (v, o) => (o.retryJitterMs = time('--retry-jitter', v, 'ms', 0)) },
  operation: {
    arg: 'OP',
    help: `what one cycle does (default ${d.operation}):\n` +
      '  acquire-release         acquire, hold, release\n' +
      '  acquire-extend-release  acquire, hold, extend by --lock-duration, release\n' +
      '  using                   redlock.using() around the hold (acquire timed to the routine\'s start, release from its end)\n' +
      '  renew-hold              --concurrency locks per worker held for the whole run, kept alive by the renewal\n' +
      '                          scheduler (acquire with autoExtend). Renewals are not timed; a lost lock is an error.\n' +
      '                          Slot i of worker w holds key (i·W + w) mod K: distinct locks while --keys covers them',
    apply: (v, o) => (o.operation = oneOf('--operation', v, OPERATIONS)),
  },
  kind: {
    arg: 'KIND',
    help: `the kind of lock each cycle takes (default ${d.kind}):\n` +
      '  mutex       redlock.acquire(), one holder per key\n' +
      '  reentrant   ReentrantRedlock: each cycle is its own async context; it acquires the lock, nests\n' +
      '              --depth − 1 acquisitions of it inside (counted, nothing sent), holds, and releases them all\n' +
      '              (acquire timed to the outermost, release from the outermost); acquire-release only\n' +
      '  semaphore   a permit of redlock.semaphore(key, --permits): up to --permits holders per key\n' +
      '  rw          redlock.readWriteLock(key): read locks, every fourth acquisition of each worker a write lock\n' +
      '  election    failover time of redlock.election(): three campaigners (Redlocks in one process), the leader\n' +
      '              killed --hold after it leads, --kills times by a crash (its Redlock quit, no resign) and --kills\n' +
      '              times by resign(); from the death to the next leader\'s first action. --lock-duration is the lease',
    apply: (v, o) => (o.kind = oneOf('--kind', v, KINDS)),
  },
  depth: { arg: 'N', help: `--kind reentrant: nesting depth, the outermost acquisition included (default ${d.depth})`,
    apply: (v, o) => (o.depth = int('--depth', v, 1, 1000)) },
  kills: { arg: 'N', help: `--kind election: leader deaths of each sort, crash and resign, alternately (default ${d.kills})`,
    apply: (v, o) => (o.kills = int('--kills', v, 1, 10_000)) },
  permits: { arg: 'N', help: `--kind semaphore: permits per key (default ${d.permits})`,
    apply: (v, o) => (o.permits = int('--permits', v, 1, 1024)) },
  'start-at': {
    arg: 'TIME',
    help: 'start (warm-up first) when the wall clock reads TIME: ISO 8601 with a zone (2026-05-01T12:00:00Z) or @EPOCH\n' +
      'seconds, within 24 h. Load generators on several machines (clocks kept by NTP) then measure the same window',
    apply: (v, o) => (o.startAt = startAt(v)),
  },
  threshold: {
    arg: 'RULE',
    repeatable: true,
    help: 'fail the run (exit 99) unless RULE holds; repeatable. RULE is METRIC.STAT<VALUE (or <=, >, >=):\n' +
      '  acquire.p99<2ms    a latency of acquire, extend, release or cycle: p50, p99.9, max, mean, min (a bare number is ms)\n' +
      '  errors.rate<0.1%   failed ÷ (completed + failed) cycles; errors.count<10\n' +
      '  cycles.rate>20000  completed cycles per second; cycles.count\n' +
      `  late.rate<1%       open loop: cycles due that started over ${kLateStartMs}ms behind the schedule, or never; late.count\n` +
      'Judged each second over the measured window so far, and at the end. Without an errors rule a run whose errors\n' +
      'exceed its cycles fails (errors.rate<=50%)',
    apply: (v, o) => (o.thresholds = [...o.thresholds, rule('--threshold', v)]),
  },
  'abort-on-fail': { switch: true, help: 'stop the run as soon as a threshold fails in a second past --abort-grace (k6\'s abortOnFail)',
    apply: (_, o) => (o.abortOnFail = true) },
  'abort-grace': {
    arg: 'TIME',
    help: `with --abort-on-fail: measured time before a failed threshold stops the run; a bare number is seconds (default `
      + `${d.abortGraceMs / 1000}s)`,
    apply: (v, o) => (o.abortGraceMs = time('--abort-grace', v, 's', 0)),
  },
  sweep: {
    switch: true,
    help: 'capacity sweep: run at --rate, then at rates raised by --sweep-step, each a full run, until one fails a\n' +
      '--threshold (the bound, e.g. acquire.p99<10ms); bisect twice below it; report the knee (the highest rate that held)\n' +
      'and the curve (throughput and percentiles by rate). The table, JSON and HTML are the knee\'s run plus the curve',
    apply: (_, o) => (o.sweep = { ...kSweep, ...o.sweep }),
  },
  'sweep-step': { arg: 'STEP', help: 'with --sweep: x1.5 multiplies the rate each step, +500 adds to it (default x1.5)',
    apply: (v, o) => (o.sweep = { ...kSweep, ...o.sweep, step: sweepStep(v) }) },
  'sweep-steps': { arg: 'N', help: 'with --sweep: at most N rising steps (default 8)',
    apply: (v, o) => (o.sweep = { ...kSweep, ...o.sweep, steps: int('--sweep-steps', v, 2, 100) }) },
  'sweep-confirm': {
    arg: 'N',
    help: `with --sweep: a step that failed runs up to N more times and holds when most of its runs held; 0: one run decides
`
      + `(default ${kSweep.confirm}: near the knee one run's p99 goes either way on a shared host)`,
    apply: (v, o) => (o.sweep = { ...kSweep, ...o.sweep, confirm: int('--sweep-confirm', v, 0, 10) }),
  },
  otlp: {
    arg: 'URL',
    help: 'export the run\'s metrics each second to an OTLP/HTTP endpoint (e.g. http://localhost:4318/v1/metrics) with\n' +
      'OpenTelemetry\'s exporter: cycles, errors by code, late starts, latency histograms by operation (µs)',
    apply: (v, o) => (o.otlp = otlpUrl(v)),
  },
  json: { arg: 'FILE', help: 'write the full result: merged histograms (encoded), counts, per-worker counts, host line',
    apply: (v, o) => (o.json = path('--json', v)) },
  html: { arg: 'FILE', help: 'write a self-contained report: latency percentiles per operation, throughput over time',
    apply: (v, o) => (o.html = path('--html', v)) },
};

export const LOADTEST_USAGE = `usage: pipelock loadtest [flags]

Drives a Redlock over N independent masters from W worker threads and reports acquire, extend and
release latency (µs), completed cycles per second, failures by error code, contention and client CPU.

${Object.entries(FLAGS).map(([name, flag]) => {
  const head = `  --${name}${flag.arg === undefined ? '' : ` ${flag.arg}`}`;
  return `${head.padEnd(26)}${flag.help.replaceAll('\n', `\n${' '.repeat(26)}`)}`;
}).join('\n')}
  --help                  show this

Exit codes: 0 done, 1 the run failed (unreachable masters, no redis-server), 2 bad flags,
99 a threshold failed, 130/143 stopped by SIGINT/SIGTERM (what was measured is still printed).`;

/** Parses and validates `pipelock loadtest` flags into LoadOptions; throws UsageError naming the flag. */
export function parseLoadFlags(args: readonly string[]): LoadOptions | 'help' {
  const options = Object.fromEntries(Object.entries(FLAGS).map(([name, flag]) => [name,
    { type: flag.switch ? 'boolean' as const : 'string' as const, multiple: flag.repeatable === true }]));
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    const parsed = parseArgs({ args: negativeValues(args), options: { ...options, help: { type: 'boolean' } }, strict: true,
      allowPositionals: false, tokens: true });
    checkRepeats(parsed.tokens.filter((t) => t.kind !== 'option' || FLAGS[t.name]?.repeatable !== true));
    values = parsed.values;
  } catch (error) {
    throw fromParseArgs(error, 'loadtest');
  }
  if (values.help === true) return 'help';
  const resolved: Mutable = { ...kLoadDefaults };
  for (const [name, flag] of Object.entries(FLAGS)) {
    const value = values[name];
    for (const one of Array.isArray(value) ? value : [value]) {
      if (one !== undefined) flag.apply(String(one), resolved);
    }
  }
  checkCombination(resolved, (name) => values[name] !== undefined);
  return Object.freeze(resolved);
}

/** The flags of a cycle run, which an election run (a fixed three campaigners until --kills deaths) does not take. */
const kNotElection = ['workers', 'concurrency', 'rate', 'duration', 'warmup', 'keys', 'retry-count', 'retry-delay', 'retry-jitter',
  'operation', 'html', 'start-at'];

function checkElection(o: LoadOptions, given: (name: string) => boolean): void {
  if (given('kills') && o.kind !== 'election') throw new UsageError('--kills', 'needs --kind election');
  if (o.kind !== 'election') return;
  const other = kNotElection.find(given);
  if (other !== undefined) throw new UsageError(`--${other}`,
    'conflicts with --kind election: it runs three campaigners in one process until --kills leaders of each sort have died');
  if (o.lockMs < kMinLeaseMs)
    throw new UsageError('--lock-duration',
      `must be at least ${kMinLeaseMs}ms with --kind election (the lease: its renew deadline is a third of it, its retry `
        + `period that / 2.5)`, `${o.lockMs}ms`);
}

function checkCombination(o: LoadOptions, given: (name: string) => boolean): void {
  const fought = kScenarioSets.find((name) => given(name));
  if (given('scenario') && fought !== undefined)
    throw new UsageError(`--${fought}`, 'conflicts with --scenario: the scenario file sets it (see its stages and mix)');
  checkElection(o, given);
  checkSweep(o, given);
  if (given('abort-grace') && !o.abortOnFail) throw new UsageError('--abort-grace', 'needs --abort-on-fail');
  if (o.kind === 'election' && (given('threshold') || o.abortOnFail)) throw new UsageError(given('threshold') ? '--threshold'
    : '--abort-on-fail', 'conflicts with --kind election: it measures failover times, not cycles');
  const late = o.thresholds.find((t) => t.metric.startsWith('late.'));
  if (late !== undefined && o.rate === 0)
    throw new UsageError('--threshold', 'judges late starts, which only an open loop (--rate) has', late.rule);
  if (given('permits') && o.kind !== 'semaphore') throw new UsageError('--permits', 'needs --kind semaphore');
  if (given('servers') && given('masters'))
    throw new UsageError('--masters', 'conflicts with --servers: embedded masters are started only when no --servers is given');
  if (given('rate') && given('concurrency') && o.operation !== 'renew-hold')
    throw new UsageError('--rate',
      `conflicts with --concurrency: an open loop (--rate) starts cycles on its schedule, at most ${kOpenInFlight} (+ rate × hold) in `
        + `flight per worker`);
  if (o.rate > 0 && o.operation === 'renew-hold')
    throw new UsageError('--rate', 'conflicts with --operation renew-hold: its locks are held for the whole run, not started at a rate');
  if (runsUnderUsing(o.operation) && o.lockMs < kMinUsingLockMs) {
    throw new UsageError('--lock-duration',
      `must be at least ${kMinUsingLockMs}ms with --operation ${o.operation} (using() extends when less than `
        + `${kMinUsingLockMs - 101}ms remain)`, `${o.lockMs}ms`);
  }
  if (given('depth') && o.kind !== 'reentrant') throw new UsageError('--depth', 'needs --kind reentrant: only a reentrant lock nests');
  if (o.kind === 'reentrant' && o.operation !== 'acquire-release')
    throw new UsageError('--kind', `reentrant runs acquire-release cycles only: it conflicts with --operation ${o.operation}`, o.kind);
  if (o.operation === 'renew-hold' && given('hold'))
    throw new UsageError('--hold', 'conflicts with --operation renew-hold: its locks are held until the run ends');
    // using() extends its lock while the routine runs, and an election renews its lease: plain cycles would hold an expired lock.
  if (!runsUnderUsing(o.operation) && o.kind !== 'election' && o.holdMs >= o.lockMs) {
    throw new UsageError('--hold',
      `must be shorter than --lock-duration (${o.lockMs}ms): the lock would expire while held`, `${o.holdMs}ms`);
  }
  if (o.json !== undefined && o.json === o.html) throw new UsageError('--html', 'conflicts with --json: both name the same file');
}


function checkSweep(o: LoadOptions, given: (name: string) => boolean): void {
  const part = ['sweep-step', 'sweep-steps', 'sweep-confirm'].find(given);
  if (part !== undefined && !given('sweep')) throw new UsageError(`--${part}`, 'needs --sweep');
  if (!given('sweep')) return;
  if (o.rate === 0) throw new UsageError('--sweep', 'needs --rate: the first rate of the sweep (an open loop)');
  if (o.thresholds.length === 0)
    throw new UsageError('--sweep', 'needs --threshold: the bound the sweep raises the rate to (e.g. acquire.p99<10ms)');
  const other = ['scenario', 'abort-on-fail', 'start-at'].find(given);
  if (other !== undefined) throw new UsageError(`--${other}`, 'conflicts with --sweep');
}

/** `x1.5` (multiply, > 1) or `+500` (add, > 0). */
function sweepStep(value: string): string {
  const match = /^(x|\+)(\d+(?:\.\d+)?)$/.exec(value.trim());
  if (match === null || Number(match[2]) <= (match[1] === 'x' ? 1 : 0))
    throw new UsageError('--sweep-step', 'must be xFACTOR (above 1, e.g. x1.5) or +RATE (e.g. +500)', value);
  return `${match[1]!}${match[2]!}`;
}

function otlpUrl(value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch { /* reported below */ }
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw new UsageError('--otlp', 'must be an http:// or https:// URL (an OTLP/HTTP metrics endpoint)', value);
  return value;
}
