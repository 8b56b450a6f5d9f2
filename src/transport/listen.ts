// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Node's own listener type: any argument list
type Listener = (...args: any[]) => void;

/** Something with Node's `on`/`off` (an EventEmitter; a cluster client). */
interface Emitter {
  on(event: string, fn: Listener): unknown;
  off(event: string, fn: Listener): unknown;
}

/** `fn` on `emitter`'s `event` until the returned function is called. */
export function listen(emitter: Emitter, event: string, fn: Listener): () => void {
  emitter.on(event, fn);
  return () => emitter.off(event, fn);
}
