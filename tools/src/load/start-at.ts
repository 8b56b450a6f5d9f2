import { setTimeout as delay } from 'node:timers/promises';

/**
 * `--start-at` had passed when the workers were ready: starting now would measure a window the other
 * machines' load generators are not in. The run fails instead (exit code 1).
 */
export class LateStartError extends Error {
  override readonly name = 'LateStartError';
  readonly code = 'ERR_PIPELOCK_LATE_START';
  readonly startAt: string;

  constructor(startAt: number, readyAt: number) {
    super(`--start-at ${new Date(startAt).toISOString()} had passed when the workers were ready (${new Date(readyAt).toISOString()}, ` +
      `${((readyAt - startAt) / 1000).toFixed(1)} s late): give the masters and workers more time before the start`);
    this.startAt = new Date(startAt).toISOString();
  }
}

/**
 * Waits until the wall clock reads `startAt` (ms since the epoch): machines whose clocks NTP keeps
 * within a few ms then start together, as wrk2 and HdrHistogram users start several load generators.
 * The wait is re-checked against the wall clock, since timers run on the monotonic one.
 */
export async function untilWallClock(startAt: number, signal: AbortSignal): Promise<void> {
  const now = Date.now();
  if (now > startAt) throw new LateStartError(startAt, now);
  for (let left = startAt - now; left > 0 && !signal.aborted; left = startAt - Date.now()) {
    try {
      await delay(left, undefined, { signal });
    } catch {
      return; // stopped while waiting: the caller sees the signal
    }
  }
}
