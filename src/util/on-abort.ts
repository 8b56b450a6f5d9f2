/**
 * One 'abort' listener per AbortSignal, whatever the number of pipelock waits on it.
 *
 * Why: Node's EventTarget checks every listener already added before adding one (it refuses
 * duplicates), and removing one searches the list too, so N waits on one signal cost O(N²). A
 * batch job that passes one signal to 25,000 acquisitions spent more time in addEventListener than
 * in everything else (a --cpu-prof of renew-hold at 25,000 locks: 19% of the process). Here each
 * wait is an entry in a Set: O(1) to add and remove.
 */
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
