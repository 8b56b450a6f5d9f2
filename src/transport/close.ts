import { within } from '../util/time.js';

/** The one way every client kind is closed: gracefully for at most `graceMs` (a stalled master may never answer), then at once. */
export async function closeWithin(graceMs: number, close: () => Promise<unknown>, destroy: () => void): Promise<void> {
  const closed = await within(close().then(() => true, () => false), graceMs, true);
  if (closed !== true) destroy();
}
