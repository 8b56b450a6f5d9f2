/**
 * A signal whose `aborted`, `reason` (and `throwIfAborted()`) run `check` first. A timer is no guard after a
 * pause (SIGSTOP, a blocked event loop): the holder's own timers, due earlier, run before the one
 * that would abort the signal, so a holder reading `aborted` after the pause must read the clock.
 * `check` aborts the signal (synchronously) when the clock says so.
 */
export function readClockFirst<T extends AbortSignal>(signal: T, check: () => void): T {
  const aborted = (): boolean => Reflect.get<AbortSignal, 'aborted'>(AbortSignal.prototype, 'aborted', signal);
  Object.defineProperty(signal, 'aborted', { get: () => { check(); return aborted(); } });
  Object.defineProperty(signal, 'reason', { get: () => { check(); return Reflect.get<AbortSignal, 'reason'>(AbortSignal.prototype, 'reason', signal) as unknown; } });
  Object.defineProperty(signal, 'throwIfAborted', { value: () => { if (signal.aborted) throw signal.reason; } });
  return signal;
}
