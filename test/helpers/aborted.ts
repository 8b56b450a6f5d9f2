/**
 * Resolves with performance.now() when `signal` aborts; at once when it already has, since its 'abort'
 * event is then gone (a listener added after an awaited action can miss an abort that action caused).
 */
export function abortedAt(signal: AbortSignal): Promise<number> {
  if (signal.aborted) return Promise.resolve(performance.now());
  return new Promise((resolve) => { signal.addEventListener('abort', () => { resolve(performance.now()); }, { once: true }); });
}
