import { readFile } from 'node:fs/promises';
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
    throw new ResultFileError(file, `is not JSON (${error instanceof Error ? error.message : String(error)}): ${kFormat}`, { cause: error });
  }
  checkResult(file, value);
  return value;
}

/** Throws ResultFileError naming the first field that is missing or of the wrong kind. */
export function checkResult(file: string, value: unknown): asserts value is RunResult {
  const result = value as Record<string, unknown> | null;
  if (typeof result !== 'object' || result === null || result.format !== 'pipelock-loadtest' || result.version !== 1) throw new ResultFileError(file, kFormat);
  const field = (name: string, ok: boolean): void => {
    if (!ok) throw new ResultFileError(file, `has no valid ${name}: ${kFormat}`);
  };
  for (const name of ['runs', 'measuredSeconds', 'cycles', 'throughput', 'contendedAcquires', 'lostAttempts', 'clamped']) {
    const n = result[name];
    field(name, typeof n === 'number' && Number.isFinite(n) && n >= 0);
  }
  field('runs', Number.isInteger(result.runs) && (result.runs as number) >= 1);
  field('interrupted', typeof result.interrupted === 'boolean');
  field('errors', isCounts(result.errors));
  field('hosts', Array.isArray(result.hosts) && result.hosts.length === result.runs &&
    result.hosts.every((h: unknown) => typeof h === 'object' && h !== null && typeof (h as { flags?: unknown }).flags === 'object' && (h as { flags?: unknown }).flags !== null));
  field('timeline', Array.isArray(result.timeline) && result.timeline.every((p: unknown) => typeof p === 'object' && p !== null &&
    typeof (p as Record<string, unknown>).second === 'number' && typeof (p as Record<string, unknown>).cycles === 'number'));
  field('workers', Array.isArray(result.workers));
  field('cpu', Array.isArray(result.cpu));
  const operations = result.operations as Record<string, Record<string, unknown> | null | undefined> | null | undefined;
  field('operations', typeof operations === 'object' && operations !== null);
  for (const op of OP_NAMES) {
    const entry = operations![op];
    field(`operations.${op}`, typeof entry === 'object' && entry !== null && typeof entry.histogram === 'string' &&
      ['count', 'p50', 'p90', 'p99', 'p999', 'max'].every((k) => typeof entry[k] === 'number'));
    let count: number;
    try {
      const histogram = decode(entry!.histogram as string);
      count = histogram.totalCount;
      histogram.destroy();
    } catch (error) {
      throw new ResultFileError(file, `has an operations.${op}.histogram that does not decode (${error instanceof Error ? error.message : String(error)})`, { cause: error });
    }
    if (count !== entry!.count) throw new ResultFileError(file, `has operations.${op}.count ${String(entry!.count)} but its histogram holds ${count} values`);
  }
}

function isCounts(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.values(value).every((n) => typeof n === 'number' && Number.isFinite(n));
}
