import { within } from '../util/time.js';

/**
 * Closes a connection gracefully (its pending replies first) for at most `graceMs`, since a stalled
 * master may never answer, then at once: the one way every client kind pipelock closes is closed.
 */
export async function closeWithin(graceMs: number, close: () => Promise<unknown>, destroy: () => void): Promise<void> {
  const closed = await within(close().then(() => true, () => false), graceMs, true);
  if (closed !== true) destroy();
}
