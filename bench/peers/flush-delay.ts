/**
 * The flush window, measured (docs/decisions/0013): contender `pipelock-flush-<µs>` holds each flush of
 * a tick until that long after it fell due, as rueidis's `MaxFlushDelay` pauses its writer to gather more
 * commands per write. Node has no timer under a millisecond and its one thread also reads the replies,
 * so the wait turns the event loop (setImmediate, the replies of each turn's I/O phase read meanwhile)
 * until the time has passed: what those turns cost the client is part of what is measured.
 * Only the benchmark's measuring process patches the flusher; the library has no such setting.
 */
import { Flusher, type Flushable } from '../../src/engine/flusher.js';

/** The contender's id for a delay of `us` microseconds. */
export const flushDelayId = (us: number): string => `pipelock-flush-${us}`;

/** The delay a contender id asks for, or undefined when it is not such an id. */
export function flushDelayOf(id: string): number | undefined {
  const match = /^pipelock-flush-(\d+)$/.exec(id);
  return match === null ? undefined : Number(match[1]);
}

/** Every flush of this process waits `us` µs after the first coalescer of its tick fell due (0: the next turn). */
export function delayFlushes(us: number): void {
  const due: Flushable[] = [];
  let since = 0;
  const limit = us / 1000;
  const turn = (): void => {
    if (performance.now() - since < limit) {
      setImmediate(turn);
      return;
    }
    const list = due.splice(0);
    for (const coalescer of list) coalescer.flush();
  };
  const hold = (coalescer: Flushable): void => {
    if (due.push(coalescer) > 1) return;
    since = performance.now();
    setImmediate(turn);
  };
  Flusher.prototype.soon = hold;
  Flusher.prototype.later = hold;
}
