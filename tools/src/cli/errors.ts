/** A flag or argument broke its rule, or two flags conflict: exit code 2, the message names the flag. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  readonly code = 'ERR_PIPELOCK_USAGE';
  /** The flag as typed (`--workers`), or the argument's name. */
  readonly flag: string;
  readonly rule: string;

  constructor(flag: string, rule: string, received?: string) {
    super(received === undefined ? `${flag} ${rule}` : `${flag} ${rule}, got ${JSON.stringify(received)}`);
    this.flag = flag;
    this.rule = rule;
  }
}

/**
 * Exit codes: 0 done, 1 the run failed, 2 bad usage, 99 a threshold failed (k6's code, which CI
 * scripts written for k6 already tell apart), 128 + n killed by signal n (130 SIGINT, 143 SIGTERM).
 */
export const EXIT = Object.freeze({ ok: 0, failed: 1, usage: 2, thresholds: 99, SIGINT: 130, SIGTERM: 143 });

/**
 * A subcommand's arguments through `parse`: its options, or the exit code once it printed its usage (`--help`: 0) or
 * an error naming the flag (2). Other errors propagate, unless `anyError` (a report's bad input file is bad usage too).
 */
export function parseOr<T extends object>(command: string, usageText: string, parse: () => T | 'help', anyError = false): T | number {
  try {
    const options = parse();
    if (options !== 'help') return options;
    console.log(usageText);
    return EXIT.ok;
  } catch (error) {
    return usageFailure(command, error, anyError);
  }
}

/** Prints `error` as `pipelock <command>`'s, with the pointer to --help where a flag broke its rule: exit code 2. */
export function usageFailure(command: string, error: unknown, anyError = false): number {
  const flagged = error instanceof UsageError;
  if (!flagged && !anyError) throw error;
  const message = error instanceof Error ? error.message : String(error);
  console.error(`pipelock ${command}: ${message}${flagged ? `\nTry pipelock ${command} --help.` : ''}`);
  return EXIT.usage;
}
