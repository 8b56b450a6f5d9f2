/** One 'abort' listener per AbortSignal: EventTarget's duplicate check makes N listeners O(N²) (docs/decisions/0012). */
const waits = new WeakMap<AbortSignal, Set<() => void>>();

/** Calls `fn` once when `signal` aborts, unless the returned function was called first. */
export function onAbort(signal: AbortSignal, fn: () => void): () => void {
  // An aborted signal dispatches no more events: answer at once, as a listener would have been.
  if (signal.aborted) {
    queueMicrotask(fn);
    return () => undefined;
  }
  let set = waits.get(signal);
  if (set === undefined) {
    const created = new Set<() => void>();
    set = created;
    waits.set(signal, created);
    signal.addEventListener('abort', () => {
      waits.delete(signal);
      for (const wait of created) wait();
    }, { once: true });
  }
  const entry = set;
  entry.add(fn);
  return () => { entry.delete(fn); };
}
