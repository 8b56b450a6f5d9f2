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
