/** A signal whose `aborted` and `reason` run `check` first: after a pause, the holder's own timers run before the abort's. */
export function readClockFirst<T extends AbortSignal>(signal: T, check: () => void): T {
  const aborted = (): boolean => Reflect.get<AbortSignal, 'aborted'>(AbortSignal.prototype, 'aborted', signal);
  Object.defineProperty(signal, 'aborted', { get: () => { check(); return aborted(); } });
  Object.defineProperty(signal, 'reason',
    { get: () => { check(); return Reflect.get<AbortSignal, 'reason'>(AbortSignal.prototype, 'reason', signal) as unknown; } });
  Object.defineProperty(signal, 'throwIfAborted', { value: () => { if (signal.aborted) throw signal.reason; } });
  return signal;
}
