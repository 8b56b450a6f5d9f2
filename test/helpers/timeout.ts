/** Thrown by `timed` when a test outlives its limit. */
export class TestTimeoutError extends Error {
  override readonly name = 'TestTimeoutError';
  readonly code = 'ERR_TEST_TIMEOUT';
  readonly ms: number;

  constructor(ms: number) {
    super(`test timed out after ${ms} ms (its limit, set with timed(${ms}, …))`);
    this.ms = ms;
  }
}

/**
 * Wraps a test so it rejects after `ms` (uvu has no timeouts). The timer is deliberately ref'd:
 * a test stuck on something that does not hold the event loop still fails by name, rather than
 * uvu's "Exiting early before testing is finished".
 */
export function timed<C>(ms: number, fn: (context: C) => Promise<void> | void): (context: C) => Promise<void> {
  if (!Number.isFinite(ms) || ms <= 0) throw new RangeError(`ms must be a positive finite number, got ${String(ms)}`);
  return async (context) => {
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(new TestTimeoutError(ms));
      }, ms);
    });
    try {
      await Promise.race([(async () => fn(context))(), limit]);
    } finally {
      clearTimeout(timer);
    }
  };
}
