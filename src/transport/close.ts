/**
 * Closes a connection gracefully (its pending replies first) for at most `graceMs`, since a stalled
 * master may never answer, then at once: the one way every client kind pipelock closes is closed.
 */
export async function closeWithin(graceMs: number, close: () => Promise<unknown>, destroy: () => void): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const closed = await Promise.race([
    close().then(() => true, () => false),
    new Promise<false>((resolve) => (timer = setTimeout(resolve, graceMs, false))),
  ]);
  clearTimeout(timer);
  if (!closed) destroy();
}
