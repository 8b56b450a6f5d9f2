/**
 * `fn` after `ms` on an unref'd timer (a pending retry must not keep the process alive); returns
 * the cancel.
 */
export function later(ms: number, fn: () => void): () => void {
  const timer = setTimeout(fn, ms);
  timer.unref();
  return () => {
    clearTimeout(timer);
  };
}
