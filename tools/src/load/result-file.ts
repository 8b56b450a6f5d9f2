import { readFile } from 'node:fs/promises';
import { ATTEMPT_LABELS } from './contention.js';
import { decode } from './histogram.js';
import { OP_NAMES, type RunResult } from './result.js';

/**
 * A file given to `pipelock report` is not a readable `pipelock loadtest --json` result: exit code 2.
 * Names the file and what is wrong with it.
 */
export class ResultFileError extends Error {
  override readonly name = 'ResultFileError';
  readonly code = 'ERR_PIPELOCK_RESULT_FILE';
  readonly file: string;

  constructor(file: string, rule: string, options?: ErrorOptions) {
    super(`${file} ${rule}`, options);
    this.file = file;
  }
}

const kFormat = 'is not a result of pipelock loadtest --json (format pipelock-loadtest, version 1)';

/** Reads and checks one result file: every field a report or a comparison reads, and every histogram decodable. */
export async function readResult(file: string): Promise<RunResult> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ResultFileError(file, `cannot be read: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ResultFileError(file,
      `is not JSON (${error instanceof Error ? error.message : String(error)}): ${kFormat}`, { cause: error });
  }
  checkResult(file, value);
  return value;
}

/** Throws ResultFileError naming the first field that is missing or of the wrong kind. */
export function checkResult(file: string, value: unknown): asserts value is RunResult {
  const result = value as Record<string, unknown> | null;
  if (typeof result !== 'object' || result === null || result.format !== 'pipelock-loadtest' || result.version !== 1)
    throw new ResultFileError(file, kFormat);
  const field = (name: string, ok: boolean): void => {
    if (!ok) throw new ResultFileError(file, `has no valid ${name}: ${kFormat}`);
  };
  for (const name of ['runs', 'measuredSeconds', 'cycles', 'throughput', 'contendedAcquires', 'lostAttempts', 'clamped']) {
    const n = result[name];
    field(name, typeof n === 'number' && Number.isFinite(n) && n >= 0);
  }
  field('runs', Number.isInteger(result.runs) && (result.runs as number) >= 1);
  // Optional (closed loops and older files have none), checked when present.
  const whole = (n: unknown): boolean => n === undefined || (typeof n === 'number' && Number.isInteger(n) && n >= 0);
  for (const name of ['late', 'due', 'lateStarts']) field(name, whole(result[name]));
  field('interrupted', typeof result.interrupted === 'boolean');
  field('errors', isCounts(result.errors));
  field('hosts', Array.isArray(result.hosts) && result.hosts.length === result.runs &&
    result.hosts.every((h: unknown) => typeof h === 'object' && h !== null && typeof (h as { flags?: unknown }).flags === 'object'
      && (h as { flags?: unknown }).flags !== null));
  field('timeline', Array.isArray(result.timeline) && result.timeline.every((p: unknown) => typeof p === 'object' && p !== null &&
    typeof (p as Record<string, unknown>).second === 'number' && typeof (p as Record<string, unknown>).cycles === 'number'));
  field('workers', Array.isArray(result.workers));
  field('cpu', Array.isArray(result.cpu));
  const operations = result.operations as Record<string, Record<string, unknown> | null | undefined> | null | undefined;
  field('operations', typeof operations === 'object' && operations !== null);
  for (const op of OP_NAMES) checkSummary(file, `operations.${op}`, operations![op], field);
  checkContention(file, result, field);
  field('thresholds', result.thresholds === undefined || (Array.isArray(result.thresholds) && result.thresholds.every((t: unknown) =>
    typeof t === 'object' && t !== null && typeof (t as Record<string, unknown>).rule === 'string'
      && typeof (t as Record<string, unknown>).ok === 'boolean')));
}

type Field = (name: string, ok: boolean) => void;

/** A latency summary with its histogram: every figure a number, the histogram decodable and holding `count` values. */
function checkSummary(file: string, name: string, value: unknown, field: Field): void {
  const entry = value as Record<string, unknown> | null | undefined;
  field(name, typeof entry === 'object' && entry !== null && typeof entry.histogram === 'string' &&
    ['count', 'p50', 'p90', 'p99', 'p999', 'max'].every((k) => typeof entry[k] === 'number'));
  let count: number;
  try {
    const histogram = decode(entry!.histogram as string);
    count = histogram.totalCount;
    histogram.destroy();
  } catch (error) {
    throw new ResultFileError(file,
      `has an ${name}.histogram that does not decode (${error instanceof Error ? error.message : String(error)})`, { cause: error });
  }
  if (count !== entry!.count)
    throw new ResultFileError(file, `has ${name}.count ${String(entry!.count)} but its histogram holds ${count} values`);
}

/** waits, fairness and fifo are optional (files written before them have none), but checked when present. */
function checkContention(file: string, result: Record<string, unknown>, field: Field): void {
  const count = (n: unknown): boolean => typeof n === 'number' && Number.isFinite(n) && n >= 0;
  const object = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
  const { waits, fairness, fifo } = result;
  if (waits !== undefined) {
    field('waits', object(waits));
    const w = waits as Record<string, unknown>;
    checkSummary(file, 'waits.firstAttempt', w.firstAttempt, field);
    checkSummary(file, 'waits.retried', w.retried, field);
    const a = w.attempts as Record<string, unknown> | null | undefined;
    // Files written before the bucket of locks passed on (no attempt) have one bucket fewer: read with a 0 in front.
    field('waits.attempts', object(a) && Array.isArray(a.buckets) && a.buckets.length >= ATTEMPT_LABELS.length - 1
      && a.buckets.length <= ATTEMPT_LABELS.length &&
      a.buckets.every(count) && count(a.total) && count(a.max) && count(a.mean));
    if ((a!.buckets as number[]).length < ATTEMPT_LABELS.length) a!.buckets = [0, ...(a!.buckets as number[])];
    const buckets = a!.buckets as number[];
    const won = (w.firstAttempt as { count: number }).count + (w.retried as { count: number }).count;
    if (buckets[0]! + buckets[1]! !== (w.firstAttempt as { count: number }).count || buckets.reduce((x, y) => x + y, 0) !== won) {
      throw new ResultFileError(file,
        `has waits.attempts.buckets ${JSON.stringify(buckets)} that do not match waits.firstAttempt.count and waits.retried.count`);
    }
  }
  if (fairness !== undefined) {
    field('fairness', object(fairness) && ['contenders', 'acquisitions', 'sumOfSquares', 'min', 'max'].every((k) => count(fairness[k])) &&
      (fairness.jain === null || (typeof fairness.jain === 'number' && fairness.jain > 0 && fairness.jain <= 1 + 1e-9)));
  }
  if (fifo !== undefined) {
    field('fifo', object(fifo) && count(fifo.waitUs) && count(fifo.acquireP99Ratio));
  }
}

function isCounts(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.values(value).every((n) => typeof n === 'number' && Number.isFinite(n));
}
